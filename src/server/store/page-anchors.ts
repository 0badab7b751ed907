/**
 * Deep pages without walking every skipped row, for both backends. For an
 * account's unfiltered list, the value of the sort column at every `stride`-th
 * position is kept in memory (one window-function scan builds it); page N then
 * starts at the anchor before it and skips fewer than `stride` rows. Anchors
 * are checked against counters that the database's triggers keep per account
 * (so they hold across processes and replicas): domain anchors are stale after
 * any insert or delete, id anchors only after a delete (ids only grow within
 * an account: inserts land after every anchor). Rebuilding is rate-limited:
 * while stale, pages fall back to OFFSET. The backends read the counters and
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

export type SortColumn = 'id' | 'domain';

/** The per-account counters kept by the triggers (any insert or delete; deletes). */
export interface AnchorStamps {
  version: number | string;
  deletes: number | string;
}

export interface PageStart {
  from: number | string;
  skip: number;
}

interface Anchors {
  stamp: string;
  values: (number | string)[];
}

/** The counter that makes anchors of `column` stale. */
function stampOf(column: SortColumn, stamps: AnchorStamps): string {
  return String(column === 'id' ? stamps.deletes : stamps.version);
}

export function createAnchorCache(options: PageAnchorOptions = {}) {
  const stride = options.stride ?? 1000;
  const minRows = options.minRows ?? 10_000;
  const rebuildIntervalMs = options.rebuildIntervalMs ?? 5_000;
  const cache = new Map<string, Anchors>();
  const lastBuild = new Map<string, number>();

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
    ): PageStart | 'build' | undefined {
      if (!serves(start, total)) return undefined;
      const key = `${accountId}:${column}`;
      const anchors = cache.get(key);
      if (anchors?.stamp === stampOf(column, stamps)) return startIn(anchors.values, start);
      const now = Date.now();
      if (now - (lastBuild.get(key) ?? Number.NEGATIVE_INFINITY) < rebuildIntervalMs) return undefined;
      lastBuild.set(key, now);
      return 'build';
    },
    /** Anchors built in one snapshot, with that snapshot's counters. */
    store(accountId: number, column: SortColumn, stamps: AnchorStamps, values: (number | string)[]): void {
      cache.set(`${accountId}:${column}`, { stamp: stampOf(column, stamps), values });
    },
  };
}
