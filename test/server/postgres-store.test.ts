// PostgreSQL-only behaviour of the reference server: several servers on one
// database (the replicas' guarantees), start-up errors, migrations.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { openPostgresStore } from '../../src/server/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request, TEST_BACKEND } from '../helpers/server.js';

const KEY = 'postgres-key-0123456789';
const TOO_MANY = { message: { domain: ['You created too many websites.'] }, status: 422 };

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

async function twoServers(options: { websiteLimit?: number } = {}): Promise<RunningServer[]> {
  const start = () => startServer({ port: 0, db: database.url, keys: [KEY], throttlePerMinute: 0, ...options });
  return Promise.all([start(), start()]);
}

async function closeAll(servers: RunningServer[]): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}

describe('two servers on one PostgreSQL database', () => {
  it('runs this project on PostgreSQL (the contract files use it through startTestServer)', async () => {
    expect(TEST_BACKEND).toBe('postgres');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const servers = await twoServers();
      await closeAll(servers);
      const { rows } = await client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'websites'");
      expect(rows.map((row) => row.indexname)).toEqual(
        expect.arrayContaining(['websites_domain', 'websites_domain_trgm', 'websites_favorites_id']),
      );
      const versions = await client.query('SELECT version FROM sitesync_schema');
      // Two servers started at once migrated once.
      expect(versions.rows).toEqual([1, 2, 3, 4, 5, 6].map((version) => ({ version })));
    } finally {
      await client.end();
    }
  });

  it('20 concurrent creates on an account limited to 3, spread over both: exactly 3', async () => {
    const servers = await twoServers({ websiteLimit: 3 });
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          request(servers[index % 2]!.url, 'POST', '/api/v1/websites', {
            key: KEY,
            form: { domain: `race-${index}.example`, privacy: '2', password: 'a-long-password' },
          }),
        ),
      );
      expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
      const refused = responses.filter((response) => response.status !== 201);
      expect(refused.map((response) => response.body)).toEqual(Array(17).fill(TOO_MANY));
      const listed = await request(servers[1]!.url, 'GET', '/api/v1/websites', { key: KEY });
      expect(listed.body.meta.total).toBe(3);
      expect(listed.body.data).toHaveLength(3);
    } finally {
      await closeAll(servers);
    }
  });

  it('40 concurrent creates of one domain spread over both: one row, 39 × 422', async () => {
    const servers = await twoServers();
    try {
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          request(servers[index % 2]!.url, 'POST', '/api/v1/websites', {
            key: KEY,
            form: { domain: 'one.example' },
          }),
        ),
      );
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 422)).toHaveLength(39);
      const listed = await request(servers[0]!.url, 'GET', '/api/v1/websites', { key: KEY });
      expect(listed.body.meta.total).toBe(1);
    } finally {
      await closeAll(servers);
    }
  });

  it('a key revoked through one server is refused by the other on the next request', async () => {
    const servers = await twoServers();
    try {
      expect((await request(servers[1]!.url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(200);
      const [summary] = await servers[0]!.store.listAccounts();
      expect(await servers[0]!.store.revokeKey(summary!.keys[0]!.id)).toBe(true);
      expect((await request(servers[1]!.url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(401);
    } finally {
      await closeAll(servers);
    }
  });
});

describe('PostgreSQL start-up errors', () => {
  it('an unreachable server gives one line without the password', async () => {
    const url = 'postgres://someone:hunter2-secret@127.0.0.1:1/nothing';
    const error = await openPostgresStore(url).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.name).toBe('ServerSetupError');
    expect(error?.message).toMatch(/^cannot use PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nothing: /);
    expect(error?.message).toContain('ECONNREFUSED');
    expect(error?.message).not.toContain('hunter2');
    expect(error?.message).not.toContain('\n');
  });

  it('wrong credentials give one line without the password', async () => {
    const url = new URL(database.url);
    url.username = 'nobody';
    url.password = 'hunter2-secret';
    const error = await openPostgresStore(url.toString()).then(
      () => undefined,
      (caught: Error) => caught,
    );
    expect(error?.message).toMatch(/^cannot use PostgreSQL at .*: .*"nobody"/);
    expect(error?.message).not.toContain('hunter2');
  });

  it('refuses a database from a newer sitesync', async () => {
    await (await openPostgresStore(database.url)).close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('INSERT INTO sitesync_schema (version) VALUES (99)');
    await client.end();
    await expect(openPostgresStore(database.url)).rejects.toThrow(/schema version 99, newer than this sitesync/);
  });
});
