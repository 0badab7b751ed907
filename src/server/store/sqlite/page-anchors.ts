/**
 * Page anchors on SQLite (store/page-anchors.ts): the counters and the anchors are
 * read inside the list's read transaction, so they and the page share one
 * snapshot; the counters are kept by the triggers of migrations 4 and 5.
 * A filtered list's anchors are built over its filter (`where`, with `params`),
 * and its total is kept at the counters it was counted at.
 */
import type Database from 'better-sqlite3';
import {
  type AnchorFilter,
  type AnchorStamps,
  createAnchorCache,
  type PageAnchorOptions,
  type PageStart,
  type SortColumn,
} from '../page-anchors.js';

export interface FilterSql {
  filter: AnchorFilter;
  /** Conditions on `websites` (the account's included), and their parameters. */
  where: string;
  params: Record<string, unknown>;
}

export function createPageAnchors(db: Database.Database, options: PageAnchorOptions = {}) {
  // One writer at a time: ids are committed in order.
  const anchors = createAnchorCache(options, { committedInOrder: true });
  const counters = db.prepare(
    `SELECT website_version AS version, website_deletes AS deletes, website_favorites AS favorites
     FROM accounts WHERE id = ?`,
  );
  const builders = new Map<string, Database.Statement>();
  const builder = (column: SortColumn, where: string) => {
    const key = `${column}:${where}`;
    let statement = builders.get(key);
    if (!statement) {
      statement = db
        .prepare(
          `SELECT v FROM (SELECT ${column} AS v, row_number() OVER (ORDER BY ${column}) - 1 AS n FROM websites
           WHERE ${where}) WHERE n % ${anchors.stride} = 0`,
        )
        .pluck();
      builders.set(key, statement);
    }
    return statement;
  };

  const stampsOf = (accountId: number) => counters.get(accountId) as AnchorStamps | undefined;

  /** Where the ascending window starting at `start` begins, or undefined for OFFSET. Call inside the read. */
  function locate(
    accountId: number,
    column: SortColumn,
    start: number,
    total: number,
    filtered?: FilterSql,
  ): PageStart | undefined {
    if (!anchors.serves(start, total)) return undefined;
    const stamps = stampsOf(accountId);
    if (!stamps) return undefined;
    const filter = filtered?.filter ?? {};
    const found = anchors.lookup(accountId, column, stamps, start, total, filter);
    if (found !== 'build') return found;
    const where = filtered?.where ?? 'account_id = @accountId';
    const values = builder(column, where).all({ accountId, ...filtered?.params }) as (number | string)[];
    anchors.store(accountId, column, stamps, values, filter);
    const rebuilt = anchors.lookup(accountId, column, stamps, start, total, filter);
    return rebuilt === 'build' ? undefined : rebuilt;
  }

  /** A filtered list's total: kept since the counters last moved, else `count()`. Call inside the read. */
  function filteredTotal(accountId: number, filter: AnchorFilter, count: () => number): number {
    const stamps = stampsOf(accountId);
    if (!stamps) return count();
    const kept = anchors.total(accountId, stamps, filter);
    if (kept !== undefined) return kept;
    const total = count();
    anchors.storeTotal(accountId, stamps, filter, total);
    return total;
  }

  return { locate, filteredTotal };
}
