// Search and the favourite filter are served by their indexes on PostgreSQL (issue 10: "pg_trgm GIN
// index serves substring search"; partial indexes for favourites), judged by PostgreSQL's own index
// usage counters after requests through the server, on 20,000 sites with distinct domains.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'indexes-key-0123456789';

let database: TestDatabase;
let admin: pg.Client;
let server: RunningServer;
let closed = false;
beforeEach(async () => {
  closed = false;
  database = await createTestDatabase({ migrated: true });
  server = await startServer({ port: 0, db: database.url, keys: [KEY], throttlePerMinute: 0 });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const [account] = await server.store.listAccounts();
  // The per-row count trigger would update the account's row 20,000 times: off, and the count set once.
  await admin.query('ALTER TABLE websites DISABLE TRIGGER websites_count');
  await admin.query(
    `INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, favorited_at, created_at, updated_at)
     SELECT $1, md5(i::text) || '.example', 1, 0, 1, CASE WHEN i % 100 = 0 THEN '2024-01-01T00:00:00' END,
       '2024-01-01T00:00:00.000000Z', '2024-01-01T00:00:00.000000Z' FROM generate_series(1, 20000) i`,
    [account!.id],
  );
  await admin.query('ALTER TABLE websites ENABLE TRIGGER websites_count');
  await admin.query('UPDATE accounts SET website_count = 20000 WHERE id = $1', [account!.id]);
  await admin.query('VACUUM ANALYZE websites');
});
afterEach(async () => {
  if (!closed) await server.close();
  await admin.end();
  await database.drop();
});

/**
 * Scans of an index once the server has stopped: its backends report their counts as they exit
 * (an idle one would wait up to 10 s), so wait until the count moves.
 */
async function scansOf(index: string, above: number): Promise<number> {
  await server.close();
  closed = true;
  for (;;) {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query('SELECT idx_scan::int AS n FROM pg_stat_user_indexes WHERE indexrelname = $1', [
      index,
    ]);
    if (rows[0].n > above) return rows[0].n;
    await new Promise((resolve) => setTimeout(resolve, 50)); // a pause between polls, not a deadline
  }
}

const scansNow = async (index: string) => {
  const { rows } = await admin.query('SELECT idx_scan::int AS n FROM pg_stat_user_indexes WHERE indexrelname = $1', [
    index,
  ]);
  return rows[0].n as number;
};

describe('indexes on PostgreSQL', () => {
  it('a substring search is served by the trigram index', async () => {
    const before = await scansNow('websites_domain_trgm');
    const needle = (await admin.query("SELECT substr(md5('4242'), 9, 8) AS s")).rows[0].s as string;
    const found = await request(server.url, 'GET', `/api/v1/websites?search=${needle}`, { key: KEY });
    expect(found.body.data.map((site: { domain: string }) => site.domain)).toContain(
      (await admin.query("SELECT md5('4242') || '.example' AS d")).rows[0].d,
    );
    expect(await scansOf('websites_domain_trgm', before)).toBeGreaterThan(before);
  });

  it('the favourite filter is served by the partial index of favourites', async () => {
    const before = await scansNow('websites_favorites_id');
    const found = await request(server.url, 'GET', '/api/v1/websites?favorite=1&per_page=10', { key: KEY });
    expect(found.body.meta.total).toBe(200);
    expect(await scansOf('websites_favorites_id', before)).toBeGreaterThan(before);
  });
});
