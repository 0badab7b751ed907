// The throttles on PostgreSQL: counted in the database, so replicas share them (same headers and
// fixed window as the in-memory throttle), expired windows removed, and a write the throttle
// cannot count fails closed.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountWithKey, type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';
import { manualClock } from '../helpers/manual-clock.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'throttle-key-0123456789';
const WRONG = 'wrong-key-0123456789abc';

let database: TestDatabase;
let admin: pg.Client;
let servers: RunningServer[] = [];
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  await admin.end();
  await database.drop();
});

async function twoReplicas(options: ServerOptions): Promise<RunningServer[]> {
  const start = () => startServer({ port: 0, db: database.url, keys: [KEY], failedAuthPerMinute: 0, ...options });
  servers = await Promise.all([start(), start()]);
  return servers;
}

const list = (server: RunningServer, key = KEY) => request(server.url, 'GET', '/api/v1/websites', { key });

describe('the API throttle across two replicas', () => {
  it('61 requests with one key alternating between replicas: the 61st is 429, until the window passes', async () => {
    const clock = manualClock(1_000_000);
    const replicas = await twoReplicas({ throttlePerMinute: 60, throttleClock: clock.now });
    const remaining: string[] = [];
    for (let index = 0; index < 60; index += 1) {
      const response = await list(replicas[index % 2]!);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('60');
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, index) => String(59 - index)));
    clock.advance(20_000);
    const limited = await list(replicas[0]!);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: 'Too Many Attempts.' });
    expect(limited.headers.get('retry-after')).toBe('40'); // the window started at the first request
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await list(replicas[1]!)).status).toBe(429);

    clock.advance(40_000); // 60 s after the first request: a new window
    const next = await list(replicas[1]!);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('100 concurrent requests over both replicas with a limit of 60: exactly 60 served', async () => {
    const clock = manualClock(5_000);
    const replicas = await twoReplicas({ throttlePerMinute: 60, throttleClock: clock.now });
    const responses = await Promise.all(Array.from({ length: 100 }, (_, index) => list(replicas[index % 2]!)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(60);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(40);
    const served = responses.filter((response) => response.status === 200);
    const left = served.map((response) => Number(response.headers.get('x-ratelimit-remaining')));
    expect(new Set(left).size).toBe(60); // every count seen once: none lost, none doubled
  });

  it('holds no key digest, and removes expired windows', async () => {
    const clock = manualClock(0);
    const replicas = await twoReplicas({ throttlePerMinute: 5, throttleClock: clock.now });
    await list(replicas[0]!);
    const before = await admin.query('SELECT scope, key FROM throttle_windows');
    expect(before.rows).toEqual([{ scope: 'key', key: expect.stringMatching(/^key:\d+$/) }]);

    const other = await createAccountWithKey(replicas[0]!.store, 'another-account');
    clock.advance(60_000); // the first window has expired: the next hit on any replica removes it
    await list(replicas[1]!, other.key);
    const after = await admin.query('SELECT key, hits FROM throttle_windows');
    expect(after.rows).toEqual([{ key: expect.stringMatching(/^key:\d+$/), hits: 1 }]);
    expect(after.rows[0].key).not.toBe(before.rows[0].key);
  });
});

describe('the failed-authentication throttle across two replicas', () => {
  it('failures on one replica count on the other: past the limit even a right key gets 429', async () => {
    const replicas = await twoReplicas({ throttlePerMinute: 0, failedAuthPerMinute: 3 });
    for (let index = 0; index < 3; index += 1) expect((await list(replicas[index % 2]!, WRONG)).status).toBe(401);
    const refused = await list(replicas[1]!);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('wrong keys sent together (issue 23, item 2)', () => {
  it('300 concurrent wrong keys over both replicas with a limit of 30: exactly 30 × 401, the rest 429', async () => {
    const replicas = await twoReplicas({ throttlePerMinute: 0, failedAuthPerMinute: 30 });
    const responses = await Promise.all(Array.from({ length: 300 }, (_, index) => list(replicas[index % 2]!, WRONG)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(270);
    // A right key is refused as well until the window ends: the count is full.
    expect((await list(replicas[0]!)).status).toBe(429);
  });
});

describe('when the shared throttle cannot count', () => {
  it('fails closed for writes (503, Retry-After, nothing stored) and serves reads without rate-limit headers', async () => {
    const clock = manualClock(0);
    const [replica] = await twoReplicas({ throttlePerMinute: 60, throttleClock: clock.now, failedAuthPerMinute: 30 });
    expect((await list(replica!)).headers.get('x-ratelimit-remaining')).toBe('59');
    // A real fault in the throttle's store while the websites stay readable.
    await admin.query('ALTER TABLE throttle_windows RENAME TO throttle_windows_away');

    const write = await request(replica!.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'x.example' } });
    expect(write.status).toBe(503);
    expect(write.body).toEqual({ message: 'Service Unavailable.', status: 503 });
    expect(write.headers.get('retry-after')).toBe('1');
    const stored = await admin.query('SELECT count(*)::int AS n FROM websites');
    expect(stored.rows[0].n).toBe(0);

    const read = await list(replica!);
    expect(read.status).toBe(200);
    expect(read.headers.get('x-ratelimit-remaining')).toBeNull();
    expect((await list(replica!, WRONG)).status).toBe(401);

    await admin.query('ALTER TABLE throttle_windows_away RENAME TO throttle_windows');
    const back = await request(replica!.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'x.example' } });
    expect(back.status).toBe(201);
    expect(back.headers.get('x-ratelimit-remaining')).toBe('58');
  });
});
