// Storage and operations: data survives a restart, keys provision
// idempotently, keys and passwords never reach the database file or the log.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { request, startTestServer, TEST_BACKEND } from '../helpers/server.js';
import { useTestDatabase } from '../helpers/test-database.js';

const KEY = 'storage-test-key-0123456789';
const PASSWORD = 'a-memorable-password';

describe('storage', () => {
  const database = useTestDatabase('sitesync');
  let dir: string;
  let db: string;
  beforeEach(() => {
    ({ dir, db } = database());
  });

  it('keeps websites and accounts across a restart; provisioning a key again is idempotent', async () => {
    const first = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    const created = await request(first.url, 'POST', '/api/v1/websites', {
      key: KEY,
      form: { domain: 'persistent.example', privacy: '2', password: PASSWORD },
    });
    expect(created.status).toBe(201);
    await first.close();

    const second = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    const listed = await request(second.url, 'GET', '/api/v1/websites', { key: KEY });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: created.body.data.id, domain: 'persistent.example', privacy: 2, password: true }),
    ]);
    expect(listed.body.meta.total).toBe(1);
    await second.close();
  });

  // About the SQLite file; the PostgreSQL counterpart follows (key digests in detail: keys.test.ts).
  it.runIf(TEST_BACKEND === 'sqlite')('runs in WAL mode and stores neither keys nor passwords in clear', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    await request(server.url, 'POST', '/api/v1/websites', {
      key: KEY,
      form: { domain: 'hashed.example', privacy: '2', password: PASSWORD },
    });
    expect(readdirSync(dir)).toContain('sitesync.db-wal');
    await server.close();
    const bytes = readdirSync(dir)
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('');
    expect(bytes).toContain('hashed.example');
    expect(bytes).not.toContain(KEY);
    expect(bytes).not.toContain(PASSWORD);
  });

  it.runIf(TEST_BACKEND === 'postgres')('stores neither keys nor passwords in clear in PostgreSQL', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 60 });
    await request(server.url, 'POST', '/api/v1/websites', {
      key: KEY,
      form: { domain: 'hashed.example', privacy: '2', password: PASSWORD },
    });
    await server.close();
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const tables = ['accounts', 'api_keys', 'websites', 'throttle_windows'];
      const rows = await Promise.all(
        tables.map(async (table) => (await client.query(`SELECT t::text AS row FROM ${table} t`)).rows),
      );
      const text = rows
        .flat()
        .map((row) => row.row)
        .join('\n');
      expect(text).toContain('hashed.example');
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(PASSWORD);
    } finally {
      await client.end();
    }
  });

  it('applies a website limit to provisioned accounts', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY], websiteLimit: 0, throttlePerMinute: 0 });
    const response = await request(server.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'x.example' } });
    expect(response.body).toEqual({ message: { domain: ['You created too many websites.'] }, status: 422 });
    await server.close();
  });
});

describe('request log', () => {
  it('writes one JSON line per request: method, path, status, duration; never keys or passwords', async () => {
    const lines: string[] = [];
    const server = await startTestServer({ throttlePerMinute: 60, log: (line) => lines.push(line) });
    const KEY = server.key;
    await request(server.url, 'POST', '/api/v1/websites', {
      key: KEY,
      form: { domain: 'logged.example', privacy: '2', password: PASSWORD },
    });
    await request(server.url, 'GET', `/api/v1/websites?search=logged&api_key=${KEY}`, { key: 'wrong-key-value' });
    await server.close();

    expect(lines).toHaveLength(2);
    const [created, refused] = lines.map((line) => JSON.parse(line));
    expect(created).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      method: 'POST',
      path: '/api/v1/websites',
      status: 201,
      ms: expect.any(Number),
      account: 1,
      ip: '127.0.0.1',
      scheme: 'http',
    });
    expect(refused).toMatchObject({ method: 'GET', path: '/api/v1/websites', status: 401, account: null });
    const text = lines.join('\n');
    for (const secret of [KEY, PASSWORD, 'wrong-key-value']) expect(text).not.toContain(secret);
  });

  it('names the account of a 429 and a 403: the key is known', async () => {
    const lines: string[] = [];
    const server = await startTestServer({ throttlePerMinute: 1, log: (line) => lines.push(line) });
    const KEY = server.key;
    await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
    await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
    await server.setAccount(1, { apiAccess: false });
    await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
    await server.close();
    expect(lines.map((line) => JSON.parse(line)).map(({ status, account }) => ({ status, account }))).toEqual([
      { status: 200, account: 1 },
      { status: 429, account: 1 },
      { status: 403, account: 1 },
    ]);
  });
});
