/**
 * Deep pages on PostgreSQL (store/page-anchors.ts): a page past the first
 * stride, unfiltered or filtered by search and favourite, is read from a page
 * anchor, or else with OFFSET from whichever end of the order is nearer,
 * instead of walking every skipped row. The counters are read first (one small
 * query; a filtered list's total comes with them, or from the cache while they
 * have not moved); the page's statement then checks, in its own snapshot, that
 * the counters are still those the start was computed from. When a write came
 * in between, the caller's plain statement (one snapshot by itself) serves the page.
 */
import type pg from 'pg';
import type { ListQuery, ListResult, RecordShape } from '../contract.js';
import {
  type AnchorFilter,
  type AnchorStamps,
  createAnchorCache,
  isFiltered,
  type PageAnchorOptions,
  type SortColumn,
} from '../page-anchors.js';
import { countersSql } from './counters.js';
import { pgRecordJsonSql, pgSearchSql } from './schema.js';

interface Counters extends AnchorStamps {
  total: number;
}

/** The list's conditions, with the search's value as parameter `searchParam` when it has one. */
function filterSql(query: ListQuery, searchParam: string): { where: string; value?: string } {
  let where = 'account_id = $1';
  const search = query.search && pgSearchSql(query.search, searchParam);
  if (search) where += ` AND ${search.where}`;
  if (query.favorite !== undefined) where += ` AND favorited_at IS ${query.favorite ? 'NOT NULL' : 'NULL'}`;
  return search?.where.includes(searchParam) ? { where, value: search.value } : { where };
}

export function createPgDeepPages(pool: pg.Pool, options: PageAnchorOptions = {}) {
  // Creates into one account run side by side (insert-website.ts): a lower id may commit after a higher one.
  const anchors = createAnchorCache(options, { committedInOrder: false });
  const filterOf = (query: ListQuery): AnchorFilter => ({ search: query.search, favorite: query.favorite });

  // Counters and anchors from one statement, so from one snapshot.
  const buildSql = (column: SortColumn, where: string) =>
    `SELECT counters.version, counters.deletes, counters.favorites,
       array(SELECT v FROM (SELECT ${column} AS v, row_number() OVER (ORDER BY ${column}) - 1 AS n FROM websites
         WHERE ${where}) numbered WHERE n % ${anchors.stride} = 0 ORDER BY n) AS values
     FROM (${countersSql('$1')}) counters`;
  const windows = new Map<string, string>();

  /**
   * Rows [$3, $3 + $2) of the list in `direction`, from anchor $8 when anchored (the search's value
   * next), in the requested order, with whether counters $4–$7 still hold.
   */
  function windowSql(query: ListQuery, shape: RecordShape, direction: 'ASC' | 'DESC', anchored: boolean): string {
    const { where } = filterSql(query, anchored ? '$9' : '$8');
    const key = `${query.sortBy}:${query.sort}:${direction}:${anchored}:${where}:${shape.map(([k]) => k).join(',')}`;
    let text = windows.get(key);
    if (!text) {
      const column = query.sortBy === 'domain' ? 'domain' : 'id';
      const from = anchored ? ` AND ${column} >= $8` : '';
      text = `WITH page AS (SELECT * FROM websites WHERE ${where}${from}
          ORDER BY ${column} ${direction} LIMIT $2 OFFSET $3)
        SELECT coalesce(json_agg(${pgRecordJsonSql(shape)} ORDER BY ${column} ${query.sort === 'asc' ? 'ASC' : 'DESC'}),
            '[]')::text AS json, count(*)::int AS count,
          (SELECT total = $4 AND version = $5 AND deletes = $6 AND favorites = $7 FROM (${countersSql('$1')}) counters)
            AS fresh
        FROM page`;
      windows.set(key, text);
    }
    return text;
  }

  /** Builds in progress: pages that arrive meanwhile wait for the anchors rather than walk OFFSET. */
  const building = new Map<string, Promise<void>>();

  async function build(query: ListQuery): Promise<void> {
    const { where, value } = filterSql(query, '$2');
    const { rows } = await pool.query<AnchorStamps & { values: (number | string)[] }>(
      buildSql(query.sortBy, where),
      value === undefined ? [query.accountId] : [query.accountId, value],
    );
    if (rows[0]) anchors.store(query.accountId, query.sortBy, rows[0], rows[0].values, filterOf(query));
  }

  async function anchorFor(query: ListQuery, counters: Counters, start: number, total: number) {
    const filter = filterOf(query);
    const key = JSON.stringify([query.accountId, query.sortBy, filter]);
    await building.get(key);
    const found = anchors.lookup(query.accountId, query.sortBy, counters, start, total, filter);
    if (found !== 'build') return found;
    // A failed build (a statement timeout on a huge account) leaves OFFSET serving; the next try comes later.
    const done = build(query)
      .catch(() => {})
      .finally(() => building.delete(key));
    building.set(key, done);
    await done;
    // Built at a later snapshot than `counters` (a write in between): not for this page.
    const again = anchors.lookup(query.accountId, query.sortBy, counters, start, total, filter);
    return again === 'build' ? undefined : again;
  }

  /** The account's counters, and the list's total: the account's, or the filter's (kept while the counters hold). */
  async function countersAndTotal(query: ListQuery): Promise<{ counters: Counters; total: number } | undefined> {
    const { rows } = await pool.query<Counters>(countersSql('$1'), [query.accountId]);
    const counters = rows[0];
    const filter = filterOf(query);
    if (!counters || !isFiltered(filter)) return counters && { counters, total: counters.total };
    const kept = anchors.total(query.accountId, counters, filter);
    if (kept !== undefined) return { counters, total: kept };
    // Counted with the counters, in one snapshot.
    const { where, value } = filterSql(query, '$2');
    const counted = await pool.query<Counters & { filtered: number }>(
      `SELECT counters.*, (SELECT count(*)::int FROM websites WHERE ${where}) AS filtered
       FROM (${countersSql('$1')}) counters`,
      value === undefined ? [query.accountId] : [query.accountId, value],
    );
    const row = counted.rows[0];
    if (!row) return undefined;
    anchors.storeTotal(query.accountId, row, filter, row.filtered);
    return { counters: row, total: row.filtered };
  }

  return {
    /** Whether `list` may help: past the first stride (page 1 stays one statement). */
    applies(query: ListQuery): boolean {
      return query.offset >= anchors.stride;
    },
    /** The page, or undefined when the plain OFFSET statement should serve it. */
    async list(query: ListQuery, shape: RecordShape): Promise<ListResult | undefined> {
      const found = await countersAndTotal(query);
      if (!found) return undefined;
      const { counters, total } = found;
      const end = Math.min(query.offset + query.limit, total);
      if (end <= query.offset) return { json: '[]', count: 0, total };
      const limit = end - query.offset;
      // Rows [offset, end) in the requested order are rows [total - end, total - offset) in the other.
      const ascStart = query.sort === 'asc' ? query.offset : total - end;
      const descStart = total - ascStart - limit;
      const anchor = await anchorFor(query, counters, ascStart, total);
      const check = [counters.total, counters.version, counters.deletes, counters.favorites];
      const search = filterSql(query, '$8').value;
      let text: string;
      let values: unknown[];
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
      if (search !== undefined) values.push(search);
      const [page] = (await pool.query<ListResult & { fresh: boolean }>(text, values)).rows;
      return page?.fresh ? { json: page.json, count: page.count, total } : undefined;
    },
  };
}
