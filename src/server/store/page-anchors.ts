/**
 * Deep pages without walking every skipped row, for both backends. For an
 * account's list (unfiltered, or filtered by search and favourite), the value
 * of the sort column at every `stride`-th position is kept in memory (one
 * window-function scan builds it); page N then starts at the anchor before it
 * and skips fewer than `stride` rows. Anchors are checked against counters that
 * the database's triggers keep per account (so they hold across processes and
 * replicas): domain anchors are stale after any insert or delete, id anchors
 * on SQLite only after a delete (one writer at a time: ids are committed in
 * order, so inserts land after every anchor; on PostgreSQL concurrent creates
 * commit out of id order, so there any insert counts too), and anchors of a favourite filter also after a favourite is
 * set or cleared (the search only reads the domain, which never changes).
 * Filtered lists' anchors (and totals) are kept for the most recently used
 * filters only. Rebuilding is rate-limited: while stale, pages fall back to OFFSET. The backends read the counters and
 * build the anchors (store/sqlite/page-anchors.ts, store/postgres/deep-pages.ts); this module
 * decides when anchors serve and where a page starts.
 */

export interface PageAnchorOptions {
  /** Rows between anchors (default 1000). */
  stride?: number;
  /** Accounts with fewer sites use OFFSET alone (default 10,000). */
  minRows?: number;
  /** Least time between two rebuilds of one account's anchors (default 5 s). */
  rebuildIntervalMs?: number;
}

/** What the backend promises about ids: SQLite's one writer at a time commits them in order; PostgreSQL does not. */
export interface IdOrder {
  /** Whether a new website's id is above every id committed before it in its account (then inserts leave id anchors valid). */
  committedInOrder: boolean;
}

export type SortColumn = 'id' | 'domain';

/** The per-account counters kept by the triggers (any insert or delete; deletes; favourites set or cleared). */
export interface AnchorStamps {
  version: number | string;
  deletes: number | string;
  favorites: number | string;
}

/** A list's filter, as in ListQuery. */
export interface AnchorFilter {
  search?: { text: string; literal: boolean } | undefined;
  favorite?: boolean | undefined;
}

/** Filters whose anchors and totals are kept (least recently used dropped first). */
const KEPT_FILTERS = 256;

export interface PageStart {
  from: number | string;
  skip: number;
}

interface Anchors {
  stamp: string;
  values: (number | string)[];
}

/** The counters that make anchors of `column` (under `filter`) stale. */
function stampOf(column: SortColumn, stamps: AnchorStamps, filter: AnchorFilter, ids: IdOrder): string {
  const moved = String(column === 'id' && ids.committedInOrder ? stamps.deletes : stamps.version);
  return filter.favorite === undefined ? moved : `${moved}:${stamps.favorites}`;
}

/** The counters that change a filtered list's total: any insert, delete or favourite change. */
const totalStampOf = (stamps: AnchorStamps) => `${stamps.version}:${stamps.favorites}`;

export const isFiltered = (filter: AnchorFilter) => filter.search !== undefined || filter.favorite !== undefined;

function keyOf(accountId: number, column: SortColumn | 'total', filter: AnchorFilter): string {
  const { search, favorite } = filter;
  return JSON.stringify([accountId, column, search?.text ?? null, search?.literal ?? null, favorite ?? null]);
}

/**
 * Entries per account (unfiltered lists: as many as the accounts) or per filter
 * (any text a client sends: only the KEPT_FILTERS most recently used stay).
 */
function boundedMap<V>() {
  const map = new Map<string, V>();
  const filteredKeys = new Set<string>();
  return {
    get: (key: string) => map.get(key),
    set(key: string, value: V, filtered: boolean): void {
      map.set(key, value);
      if (!filtered) return;
      filteredKeys.delete(key);
      filteredKeys.add(key);
      for (const old of filteredKeys) {
        if (filteredKeys.size <= KEPT_FILTERS) break;
        filteredKeys.delete(old);
        map.delete(old);
      }
    },
  };
}

export function createAnchorCache(options: PageAnchorOptions, ids: IdOrder) {
  const stride = options.stride ?? 1000;
  const minRows = options.minRows ?? 10_000;
  const rebuildIntervalMs = options.rebuildIntervalMs ?? 5_000;
  const cache = boundedMap<Anchors>();
  const lastBuild = boundedMap<number>();
  const totals = boundedMap<{ stamp: string; total: number }>();

  function startIn(values: (number | string)[], start: number): PageStart | undefined {
    const index = Math.min(Math.floor(start / stride), values.length - 1);
    if (index < 1) return undefined;
    return { from: values[index]!, skip: start - index * stride };
  }

  const serves = (start: number, total: number) => total >= minRows && start >= stride;

  return {
    stride,
    /** Whether anchors may serve this window at all (check before reading the counters). */
    serves,
    /**
     * Where the ascending window starting at `start` begins: from an anchor, or
     * 'build' when the anchors are missing or stale and may be rebuilt now
     * (build, `store`, then ask again), or undefined for OFFSET.
     */
    lookup(
      accountId: number,
      column: SortColumn,
      stamps: AnchorStamps,
      start: number,
      total: number,
      filter: AnchorFilter = {},
    ): PageStart | 'build' | undefined {
      if (!serves(start, total)) return undefined;
      const key = keyOf(accountId, column, filter);
      const anchors = cache.get(key);
      if (anchors?.stamp === stampOf(column, stamps, filter, ids)) return startIn(anchors.values, start);
      const now = Date.now();
      if (now - (lastBuild.get(key) ?? Number.NEGATIVE_INFINITY) < rebuildIntervalMs) return undefined;
      lastBuild.set(key, now, isFiltered(filter));
      return 'build';
    },
    /** Anchors built in one snapshot, with that snapshot's counters. */
    store(
      accountId: number,
      column: SortColumn,
      stamps: AnchorStamps,
      values: (number | string)[],
      filter: AnchorFilter = {},
    ): void {
      const key = keyOf(accountId, column, filter);
      cache.set(key, { stamp: stampOf(column, stamps, filter, ids), values }, isFiltered(filter));
    },
    /** A filtered list's total counted at these counters, if it was. */
    total(accountId: number, stamps: AnchorStamps, filter: AnchorFilter): number | undefined {
      const kept = totals.get(keyOf(accountId, 'total', filter));
      return kept?.stamp === totalStampOf(stamps) ? kept.total : undefined;
    },
    /** A filtered list's total, counted in the snapshot of these counters. */
    storeTotal(accountId: number, stamps: AnchorStamps, filter: AnchorFilter, total: number): void {
      totals.set(keyOf(accountId, 'total', filter), { stamp: totalStampOf(stamps), total }, true);
    },
  };
}
