/**
 * Deep pages without walking every skipped row. For an account's unfiltered
 * list, the value of the sort column at every `stride`-th position is kept in
 * memory (one window-function scan builds it); page N then starts at the
 * anchor before it and skips fewer than `stride` rows. Anchors are checked
 * against counters the triggers keep in the database (so they hold across
 * processes): domain anchors are stale after any insert or delete, id anchors
 * only after a delete (ids only grow, so inserts land after every anchor).
 * Rebuilding is rate-limited: while stale, pages fall back to OFFSET.
 */
import type Database from 'better-sqlite3';

export interface PageAnchorOptions {
  /** Rows between anchors (default 1000). */
  stride?: number;
  /** Accounts with fewer sites use OFFSET alone (default 10,000). */
  minRows?: number;
  /** Least time between two rebuilds of one account's anchors (default 5 s). */
  rebuildIntervalMs?: number;
}

type SortColumn = 'id' | 'domain';

interface Anchors {
  stamp: number;
  values: (number | string)[];
}

export interface PageStart {
  from: number | string;
  skip: number;
}

export function createPageAnchors(db: Database.Database, options: PageAnchorOptions = {}) {
  const stride = options.stride ?? 1000;
  const minRows = options.minRows ?? 10_000;
  const rebuildIntervalMs = options.rebuildIntervalMs ?? 5_000;
  const cache = new Map<string, Anchors>();
  const lastBuild = new Map<string, number>();
  const counters = db.prepare(
    'SELECT website_version AS version, website_deletes AS deletes FROM accounts WHERE id = ?',
  );
  const builders = {
    id: db
      .prepare(
        `SELECT v FROM (SELECT id AS v, row_number() OVER (ORDER BY id) - 1 AS n FROM websites
         WHERE account_id = ?) WHERE n % ${stride} = 0`,
      )
      .pluck(),
    domain: db
      .prepare(
        `SELECT v FROM (SELECT domain AS v, row_number() OVER (ORDER BY domain) - 1 AS n FROM websites
         WHERE account_id = ?) WHERE n % ${stride} = 0`,
      )
      .pluck(),
  };

  /** Where the ascending window starting at `start` begins, or undefined for OFFSET. Call inside the read. */
  function locate(accountId: number, column: SortColumn, start: number, total: number): PageStart | undefined {
    if (total < minRows || start < stride) return undefined;
    const row = counters.get(accountId) as { version: number; deletes: number } | undefined;
    if (!row) return undefined;
    const stamp = column === 'id' ? row.deletes : row.version;
    const key = `${accountId}:${column}`;
    let anchors = cache.get(key);
    if (anchors?.stamp !== stamp) {
      const now = Date.now();
      if (now - (lastBuild.get(key) ?? Number.NEGATIVE_INFINITY) < rebuildIntervalMs) return undefined;
      lastBuild.set(key, now);
      anchors = { stamp, values: builders[column].all(accountId) as (number | string)[] };
      cache.set(key, anchors);
    }
    const index = Math.min(Math.floor(start / stride), anchors.values.length - 1);
    if (index < 1) return undefined;
    return { from: anchors.values[index]!, skip: start - index * stride };
  }

  return { locate };
}
