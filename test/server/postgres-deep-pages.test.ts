// Deep pages on PostgreSQL (page anchors, or OFFSET from the nearer end) give exactly the pages
// plain OFFSET gives, in every order and filter, also after another server writes; the anchors are what
// serve them (counters frozen behind their back make the pages differ). Their cost is measured
// in `npm run bench:server` (middle page), not here.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/server/index.js';
import type { ListQuery, ServerStore } from '../../src/server/store/contract.js';
import type { PageAnchorOptions } from '../../src/server/store/page-anchors.js';
import { insertWebsiteSql } from '../../src/server/store/postgres/insert-website.js';
import { allPages, FILTERS, ORDERS, SHAPE, seedDeepPages, toggleFavourites } from '../helpers/deep-pages.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { STORED_DEFAULTS } from '../helpers/server.js';

let database: TestDatabase;
let stores: ServerStore[] = [];
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
});
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
  await database.drop();
});

async function open(pageAnchors: PageAnchorOptions): Promise<ServerStore> {
  const store = await openPostgresStore(database.url, { pageAnchors });
  stores.push(store);
  return store;
}

describe('deep pages on PostgreSQL', () => {
  it('equal the OFFSET pages in every order and filter, before and after another server writes', async () => {
    const plain = await open({ stride: Number.POSITIVE_INFINITY }); // the OFFSET statement alone
    const anchored = await open({ stride: 7, minRows: 0, rebuildIntervalMs: 0 });
    const nearerEnd = await open({ stride: 7, minRows: Number.POSITIVE_INFINITY }); // no anchors
    const staleOnce = await open({ stride: 7, minRows: 0, rebuildIntervalMs: 3_600_000 }); // stale → OFFSET
    const { accountId, insert } = await seedDeepPages(plain);

    const compare = async () => {
      for (const filter of FILTERS) {
        for (const [sortBy, sort] of ORDERS) {
          const expected = await allPages(plain, accountId, [sortBy, sort], filter);
          expect(expected[4]!.count).toBe(10); // deep pages hold rows: the comparison is not of empty pages
          for (const store of [anchored, nearerEnd, staleOnce]) {
            expect(await allPages(store, accountId, [sortBy, sort], filter)).toEqual(expected);
          }
        }
      }
    };
    await compare();
    // Another server inserts (shifts domain positions) and deletes (shifts id positions).
    for (let n = 300; n < 330; n++) await insert(accountId, n);
    for (const id of [3, 50, 51, 120, 200]) await plain.deleteWebsite(accountId, id);
    await compare();
    await toggleFavourites(plain, accountId, [2, 4, 6, 7, 90, 150]);
    await compare();
  }, 180_000); // thousands of pages, each a round trip

  it('asked all at once while the anchors are being built, equal the OFFSET pages', async () => {
    const plain = await open({ stride: Number.POSITIVE_INFINITY });
    const anchored = await open({ stride: 7, minRows: 0, rebuildIntervalMs: 0 });
    const { accountId } = await seedDeepPages(plain);
    for (const [sortBy, sort] of ORDERS) {
      const queries = Array.from({ length: 24 }, (_, page): ListQuery => {
        return { accountId, sortBy, sort, limit: 10, offset: page * 10 };
      });
      const expected = await Promise.all(queries.map((query) => plain.listWebsites(query, SHAPE)));
      expect(await Promise.all(queries.map((query) => anchored.listWebsites(query, SHAPE)))).toEqual(expected);
    }
  });

  it('equal the OFFSET pages when lower ids commit after higher ones (creates side by side)', async () => {
    const plain = await open({ stride: Number.POSITIVE_INFINITY });
    const anchored = await open({ stride: 7, minRows: 0, rebuildIntervalMs: 0 });
    const { accountId } = await seedDeepPages(plain);
    const late = new pg.Client({ connectionString: database.url });
    await late.connect();
    try {
      // Twenty creates draw their ids and stay uncommitted while twenty later ones commit.
      await late.query('BEGIN');
      for (let n = 0; n < 20; n++) {
        await late.query(insertWebsiteSql('unlimited', 'id'), [
          accountId,
          `late-${n}.example`,
          1,
          null,
          0,
          1,
          null,
          null,
          null,
          '2026-01-01T00:00:00.000000Z',
        ]);
      }
      for (let n = 400; n < 420; n++)
        await plain.insertWebsite(accountId, `early-${n}.example`, STORED_DEFAULTS, new Date());
      for (const [sortBy, sort] of ORDERS) {
        expect(await allPages(anchored, accountId, [sortBy, sort])).toEqual(
          await allPages(plain, accountId, [sortBy, sort]),
        );
      }
      await late.query('COMMIT');
      for (const [sortBy, sort] of ORDERS) {
        expect(await allPages(anchored, accountId, [sortBy, sort])).toEqual(
          await allPages(plain, accountId, [sortBy, sort]),
        );
      }
    } finally {
      await late.end();
    }
  });

  it('are served by the anchors: with the counters frozen, a new first domain is not noticed', async () => {
    const plain = await open({ stride: Number.POSITIVE_INFINITY });
    const anchored = await open({ stride: 7, minRows: 0, rebuildIntervalMs: 0 });
    const { accountId } = await seedDeepPages(plain);
    const deep: ListQuery = { accountId, sortBy: 'domain', sort: 'asc', limit: 10, offset: 100 };
    expect(await anchored.listWebsites(deep, SHAPE)).toEqual(await plain.listWebsites(deep, SHAPE));

    // Behind the triggers' back: the counters (and the total) stay, positions shift by one.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('ALTER TABLE websites DISABLE TRIGGER websites_count');
      await admin.query(
        `INSERT INTO websites (account_id, domain, created_at, updated_at) VALUES ($1, 'aaa.example', '', '')`,
        [accountId],
      );
    } finally {
      await admin.end();
    }
    const fromAnchor = await anchored.listWebsites(deep, SHAPE);
    const fromOffset = await plain.listWebsites(deep, SHAPE);
    expect(fromAnchor.total).toBe(fromOffset.total);
    expect(fromAnchor.json).not.toBe(fromOffset.json);
  });
});
