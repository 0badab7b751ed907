// The PostgreSQL pool under a running server (issue 10: "pool size configurable, statement timeouts"):
// a statement past the statement timeout and a connection PostgreSQL drops (a restart, a fail-over)
// are the database being unavailable for a moment, answered 503 with Retry-After as a locked SQLite
// file is (docs/server.md), never 500; and a server never holds more than its pool's connections.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountWithKey, type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import { hashKey } from '../../src/server/store/credentials.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'pool-key-0123456789abc';
const UNAVAILABLE = { message: 'Service Unavailable.', status: 503 };

let database: TestDatabase;
let admin: pg.Client;
let server: RunningServer | undefined;
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterEach(async () => {
  await admin.query('ROLLBACK').catch(() => {});
  await server?.close();
  server = undefined;
  await admin.end();
  await database.drop();
});

async function start(options: ServerOptions): Promise<RunningServer> {
  server = await startServer({ port: 0, db: database.url, keys: [KEY], throttlePerMinute: 0, ...options });
  return server;
}

/** Holds an exclusive lock on the websites table until ROLLBACK: every statement on it waits. */
async function lockWebsites(): Promise<void> {
  await admin.query('BEGIN');
  await admin.query('LOCK TABLE websites IN ACCESS EXCLUSIVE MODE');
}

/**
 * The server's connections waiting for that lock, once there are `count` of them. Polled every few
 * milliseconds (a loop without pause competes with the server it waits for, on a busy machine); a wait
 * past `patienceMs` fails with what the server's connections are doing, not with the test's timeout.
 */
async function lockWaiters(count: number, patienceMs = 45_000): Promise<number[]> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    const { rows } = await admin.query<{ pid: number; wait_event_type: string | null; state: string; query: string }>(
      `SELECT pid, wait_event_type, state, query FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    const waiting = rows.filter((row) => row.wait_event_type === 'Lock');
    if (waiting.length >= count) return waiting.map((row) => row.pid);
    if (Date.now() > deadline) throw new Error(`no ${count} lock waiters; connections: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const create = (url: string, domain: string) =>
  request(url, 'POST', '/api/v1/websites', { key: KEY, form: { domain } });

describe('the PostgreSQL pool under a running server', () => {
  it('a statement past the statement timeout is cancelled: 503 with Retry-After, nothing stored', async () => {
    const { url } = await start({ statementTimeoutMs: 300 });
    await lockWebsites();
    const cancelled = await create(url, 'late.example');
    expect([cancelled.status, cancelled.body]).toEqual([503, UNAVAILABLE]);
    expect(cancelled.headers.get('retry-after')).toBe('1');
    await admin.query('ROLLBACK');
    expect((await admin.query('SELECT domain FROM websites')).rows).toEqual([]);
    expect((await create(url, 'late.example')).status).toBe(201);
  });

  it('a connection PostgreSQL terminates mid-request is 503; the next request gets a new one', async () => {
    const { url } = await start({ statementTimeoutMs: 30_000 });
    await lockWebsites();
    const answer = request(url, 'GET', '/api/v1/websites', { key: KEY });
    const [pid] = await lockWaiters(1);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const dropped = await answer;
    expect([dropped.status, dropped.body]).toEqual([503, UNAVAILABLE]);
    expect(dropped.headers.get('retry-after')).toBe('1');
    await admin.query('ROLLBACK');
    expect((await request(url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(200);
  });

  it('holds at most --pool-size connections (plus the one for start-up locks), however many requests come', async () => {
    const { url } = await start({ poolSize: 2 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, index) => create(url, `pool-${index}.example`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(201));
    const { rows } = await admin.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    expect(rows[0].n).toBeLessThanOrEqual(3);
  });

  it('one account held by a row lock takes a bounded share of the pool: another account is served meanwhile', async () => {
    // A statement timeout far away: only the bound can let the other account through.
    const running = await start({ poolSize: 4, statementTimeoutMs: 120_000 });
    const owner = (await running.store.findAccountByName(`key-${hashKey(KEY).slice(0, 12)}`))!;
    const other = await createAccountWithKey(running.store, 'other-account');
    await admin.query('BEGIN');
    await admin.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [owner.id]);
    const creates = Array.from({ length: 20 }, (_, index) => create(running.url, `held-${index}.example`));
    await lockWaiters(1);
    const served = await request(running.url, 'GET', '/api/v1/websites', { key: other.key });
    expect(served.status).toBe(200);
    // One of the held account's writes waits on the lock; the others wait in the server, holding no connection.
    expect(await lockWaiters(1)).toHaveLength(1);
    await admin.query('ROLLBACK');
    expect((await Promise.all(creates)).map((answer) => answer.status)).toEqual(Array(20).fill(201));
  }, 60_000); // 20 creates queued behind one lock and two PostgreSQL round trips each: slow on a loaded machine
});
