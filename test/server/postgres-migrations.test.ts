// PostgreSQL schema versions (issue 10: "migrations, versioned like SQLite's, run at start under an
// advisory lock"): a database left at an older version by an earlier sitesync is brought up to date
// at start with its rows intact, and several servers starting together on a new database migrate it
// exactly once.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresStore, startServer } from '../../src/server/index.js';
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/server/store/postgres/migrations.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'migrations-key-0123456789';
const ALL_VERSIONS = PG_MIGRATIONS.map((migration) => ({ version: migration.version }));

let database: TestDatabase;
let admin: pg.Client;
beforeEach(async () => {
  database = await createTestDatabase();
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterEach(async () => {
  await admin.end();
  await database.drop();
});

const versions = async () => (await admin.query('SELECT version FROM sitesync_schema ORDER BY version')).rows;

describe('PostgreSQL schema migrations', () => {
  it('brings a version-1 database up to date at start: rows kept, the later tables and counters work', async () => {
    // The database as the first PostgreSQL release of sitesync left it, with an account and a website.
    await admin.query('CREATE TABLE sitesync_schema (version integer NOT NULL)');
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const client = await pool.connect();
    try {
      await PG_MIGRATIONS[0]!.up(client);
      await client.query('INSERT INTO sitesync_schema (version) VALUES (1)');
    } finally {
      client.release();
      await pool.end();
    }
    const stamp = '2026-01-01T00:00:00.000000Z';
    await admin.query("INSERT INTO accounts (id, name, website_limit, created_at) VALUES (7, 'old-account', 5, $1)", [
      stamp,
    ]);
    await admin.query(
      "INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, created_at, updated_at) VALUES (7, 'kept.example', 1, 0, 1, $1, $1)",
      [stamp],
    );

    const server = await startServer({ port: 0, db: database.url, keys: [KEY], throttlePerMinute: 5 });
    try {
      expect(await versions()).toEqual(ALL_VERSIONS);
      const [old] = (await server.store.listAccounts()).filter((account) => account.name === 'old-account');
      // Migration 6: an account from before it is no admin.
      expect(old).toMatchObject({ id: 7, websiteLimit: 5, websiteCount: 1, admin: false });
      // Migration 2: the shared throttle counts; migration 3: the counters follow writes.
      const created = await request(server.url, 'POST', '/api/v1/websites', {
        key: KEY,
        form: { domain: 'new.example' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('x-ratelimit-remaining')).toBe('4');
      // Migration 4: the account row keeps the base, the slots what came since.
      const counters = await admin.query(
        `SELECT website_count + (SELECT coalesce(sum(count), 0)::int FROM website_counters c WHERE c.account_id = a.id)
           AS count, website_version + (SELECT coalesce(sum(version), 0) FROM website_counters c
             WHERE c.account_id = a.id) AS version FROM accounts a WHERE id <> 7`,
      );
      expect(counters.rows).toEqual([{ count: 1, version: '1' }]);
      const kept = await admin.query('SELECT domain FROM websites WHERE account_id = 7');
      expect(kept.rows).toEqual([{ domain: 'kept.example' }]);
    } finally {
      await server.close();
    }
  });

  it('four servers opening one new database at the same moment migrate it once', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(database.url)));
    await Promise.all(stores.map((store) => store.close()));
    expect(await versions()).toEqual(ALL_VERSIONS);
    expect(PG_SCHEMA_VERSION).toBe(ALL_VERSIONS.at(-1)!.version);
    const secrets = await admin.query('SELECT count(*)::int AS n FROM server_secret');
    expect(secrets.rows).toEqual([{ n: 1 }]);
  });
});
