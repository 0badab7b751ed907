/**
 * Deep pages on PostgreSQL (store/page-anchors.ts): an unfiltered page past the first
 * stride is read from a page anchor, or else with OFFSET from whichever end of
 * the order is nearer, instead of walking every skipped row. The counters are
 * read first (one small query); the page's statement then checks, in its own
 * snapshot, that the counters and the total are still those the start was
 * computed from. When a write came in between, the caller's plain statement
 * (one snapshot by itself) serves the page.
 */
import type pg from 'pg';
import type { ListQuery, ListResult, RecordShape } from '../contract.js';
import { type AnchorStamps, createAnchorCache, type PageAnchorOptions, type SortColumn } from '../page-anchors.js';
import { pgRecordJsonSql } from './schema.js';

interface Counters extends AnchorStamps {
  total: number;
}

export function createPgDeepPages(pool: pg.Pool, options: PageAnchorOptions = {}) {
  const anchors = createAnchorCache(options);
  // Counters and anchors from one statement, so from one snapshot.
  const buildSql = (column: SortColumn) =>
    `SELECT website_version AS version, website_deletes AS deletes,
       array(SELECT v FROM (SELECT ${column} AS v, row_number() OVER (ORDER BY ${column}) - 1 AS n FROM websites
         WHERE account_id = $1) numbered WHERE n % ${anchors.stride} = 0 ORDER BY n) AS values
     FROM accounts WHERE id = $1`;
  const windows = new Map<string, string>();

  /** Rows [$3, $3 + $2) of the account in `direction`, from anchor $7 when anchored, in the requested order. */
  function windowSql(query: ListQuery, shape: RecordShape, direction: 'ASC' | 'DESC', anchored: boolean): string {
    const key = `${query.sortBy}:${query.sort}:${direction}:${anchored}:${shape.map(([k]) => k).join(',')}`;
    let text = windows.get(key);
    if (!text) {
      const column = query.sortBy === 'domain' ? 'domain' : 'id';
      const from = anchored ? ` AND ${column} >= $7` : '';
      text = `WITH page AS (SELECT * FROM websites WHERE account_id = $1${from}
          ORDER BY ${column} ${direction} LIMIT $2 OFFSET $3)
        SELECT coalesce(json_agg(${pgRecordJsonSql(shape)} ORDER BY ${column} ${query.sort === 'asc' ? 'ASC' : 'DESC'}),
            '[]')::text AS json, count(*)::int AS count,
          (SELECT website_count = $4 AND website_version = $5 AND website_deletes = $6 FROM accounts WHERE id = $1)
            AS fresh
        FROM page`;
      windows.set(key, text);
    }
    return text;
  }

  /** Builds in progress: pages that arrive meanwhile wait for the anchors rather than walk OFFSET. */
  const building = new Map<string, Promise<void>>();

  async function build(accountId: number, column: SortColumn): Promise<void> {
    const { rows } = await pool.query<AnchorStamps & { values: (number | string)[] }>(buildSql(column), [accountId]);
    if (rows[0]) anchors.store(accountId, column, rows[0], rows[0].values);
  }

  async function anchorFor(query: ListQuery, counters: Counters, start: number) {
    const key = `${query.accountId}:${query.sortBy}`;
    await building.get(key);
    const found = anchors.lookup(query.accountId, query.sortBy, counters, start, counters.total);
    if (found !== 'build') return found;
    // A failed build (a statement timeout on a huge account) leaves OFFSET serving; the next try comes later.
    const done = build(query.accountId, query.sortBy)
      .catch(() => {})
      .finally(() => building.delete(key));
    building.set(key, done);
    await done;
    // Built at a later snapshot than `counters` (a write in between): not for this page.
    const again = anchors.lookup(query.accountId, query.sortBy, counters, start, counters.total);
    return again === 'build' ? undefined : again;
  }

  return {
    /** Whether `list` may help: unfiltered and past the first stride (page 1 stays one statement). */
    applies(query: ListQuery): boolean {
      return query.search === undefined && query.favorite === undefined && query.offset >= anchors.stride;
    },
    /** The page, or undefined when the plain OFFSET statement should serve it. */
    async list(query: ListQuery, shape: RecordShape): Promise<ListResult | undefined> {
      const { rows } = await pool.query<Counters>(
        `SELECT website_count AS total, website_version AS version, website_deletes AS deletes
         FROM accounts WHERE id = $1`,
        [query.accountId],
      );
      const counters = rows[0];
      if (!counters) return undefined;
      const { total } = counters;
      const end = Math.min(query.offset + query.limit, total);
      if (end <= query.offset) return { json: '[]', count: 0, total };
      const limit = end - query.offset;
      // Rows [offset, end) in the requested order are rows [total - end, total - offset) in the other.
      const ascStart = query.sort === 'asc' ? query.offset : total - end;
      const descStart = total - ascStart - limit;
      const anchor = await anchorFor(query, counters, ascStart);
      let text: string;
      let values: unknown[];
      const check = [total, counters.version, counters.deletes];
      if (anchor) {
        text = windowSql(query, shape, 'ASC', true);
        values = [query.accountId, limit, anchor.skip, ...check, anchor.from];
      } else if (Math.min(ascStart, descStart) < query.offset) {
        const direction = ascStart <= descStart ? 'ASC' : 'DESC';
        text = windowSql(query, shape, direction, false);
        values = [query.accountId, limit, Math.min(ascStart, descStart), ...check];
      } else {
        return undefined;
      }
      const [page] = (await pool.query<ListResult & { fresh: boolean }>(text, values)).rows;
      return page?.fresh ? { json: page.json, count: page.count, total } : undefined;
    },
  };
}
