/**
 * Page anchors on SQLite (store/page-anchors.ts): the counters and the anchors are
 * read inside the list's read transaction, so they and the page share one
 * snapshot; the counters are kept by the triggers of migration 4.
 */
import type Database from 'better-sqlite3';
import {
  type AnchorStamps,
  createAnchorCache,
  type PageAnchorOptions,
  type PageStart,
  type SortColumn,
} from '../page-anchors.js';

export function createPageAnchors(db: Database.Database, options: PageAnchorOptions = {}) {
  const anchors = createAnchorCache(options);
  const counters = db.prepare(
    'SELECT website_version AS version, website_deletes AS deletes FROM accounts WHERE id = ?',
  );
  const builders = {
    id: db
      .prepare(
        `SELECT v FROM (SELECT id AS v, row_number() OVER (ORDER BY id) - 1 AS n FROM websites
         WHERE account_id = ?) WHERE n % ${anchors.stride} = 0`,
      )
      .pluck(),
    domain: db
      .prepare(
        `SELECT v FROM (SELECT domain AS v, row_number() OVER (ORDER BY domain) - 1 AS n FROM websites
         WHERE account_id = ?) WHERE n % ${anchors.stride} = 0`,
      )
      .pluck(),
  };

  /** Where the ascending window starting at `start` begins, or undefined for OFFSET. Call inside the read. */
  function locate(accountId: number, column: SortColumn, start: number, total: number): PageStart | undefined {
    if (!anchors.serves(start, total)) return undefined;
    const stamps = counters.get(accountId) as AnchorStamps | undefined;
    if (!stamps) return undefined;
    const found = anchors.lookup(accountId, column, stamps, start, total);
    if (found !== 'build') return found;
    anchors.store(accountId, column, stamps, builders[column].all(accountId) as (number | string)[]);
    const rebuilt = anchors.lookup(accountId, column, stamps, start, total);
    return rebuilt === 'build' ? undefined : rebuilt;
  }

  return { locate };
}
