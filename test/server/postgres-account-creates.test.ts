// One account's creates are not serialised on its row (issue 27): a create in
// flight (inserted, not yet committed) in an account without a limit does not
// hold up another create into that account; with a limit, creates still take
// turns, so the limit stays exact (also test/server/concurrency.test.ts).
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { COUNTER_SLOTS } from '../../src/server/store/postgres/counters.js';
import { insertWebsiteSql } from '../../src/server/store/postgres/insert-website.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'account-creates-key-0123456789';

let database: TestDatabase;
let server: RunningServer;
let other: pg.Client | undefined;
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
});
afterEach(async () => {
  await other?.end();
  other = undefined;
  await server?.close();
  await database.drop();
});

const values = (accountId: number, domain: string) => [
  accountId,
  domain,
  1,
  null,
  0,
  1,
  null,
  null,
  null,
  '2026-01-01T00:00:00.000000Z',
];

/** A connection of the test's own whose counter slot no connection of the server shares. */
async function connectionBesideServer(): Promise<pg.Client> {
  for (;;) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    const mine = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    if (rows.every((row) => row.pid % COUNTER_SLOTS !== mine % COUNTER_SLOTS)) return client;
    await client.end();
  }
}

/** Starts a create in another transaction and leaves it uncommitted, as a create in flight is. */
async function createInFlight(accountId: number, limited: boolean): Promise<pg.Client> {
  other = await connectionBesideServer();
  await other.query('BEGIN');
  const sql = insertWebsiteSql(limited ? 'limited' : 'unlimited', 'id');
  const { rowCount } = await other.query(sql, values(accountId, 'in-flight.example'));
  expect(rowCount).toBe(1);
  return other;
}

async function theAccount(): Promise<number> {
  const [account] = await server.store.listAccounts();
  return account!.id;
}

describe("one account's creates", () => {
  it('run beside a create in flight in the same account (no limit)', async () => {
    server = await startServer({ port: 0, db: database.url, keys: [KEY], throttlePerMinute: 0, poolSize: 1 });
    const accountId = await theAccount();
    const inFlight = await createInFlight(accountId, false);
    // Before issue 27 this waited for the other transaction's commit (the account row was locked).
    const created = await request(server.url, 'POST', '/api/v1/websites', {
      key: KEY,
      form: { domain: 'beside.example' },
    });
    expect(created.status).toBe(201);
    await inFlight.query('COMMIT');
    const list = await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
    expect(list.body.meta.total).toBe(2);
    expect((await server.store.listAccounts())[0]?.websiteCount).toBe(2);
  });

  it('take turns when the account has a limit: the next one counts the one committed before it', async () => {
    server = await startServer({
      port: 0,
      db: database.url,
      keys: [KEY],
      throttlePerMinute: 0,
      poolSize: 1,
      websiteLimit: 1,
    });
    const accountId = await theAccount();
    const inFlight = await createInFlight(accountId, true);
    const waiting = request(server.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'second.example' } });
    // The waiting create is blocked on the account row, behind the transaction in flight.
    for (;;) {
      const { rows } = await inFlight.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype IN ('tuple', 'transactionid')",
      );
      if (rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20)); // a pause between polls, not a deadline
    }
    await inFlight.query('COMMIT');
    const answer = await waiting;
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ message: { domain: ['You created too many websites.'] }, status: 422 });
    expect((await server.store.listAccounts())[0]?.websiteCount).toBe(1);
  });
});
