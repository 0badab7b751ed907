// The auth gate's throttle contract on SQLite (issue 39, item 10): the promises
// postgres-throttle.test.ts checks across replicas (wrong keys sent together: exactly the limit
// answered 401, the rest 429; a throttle that cannot count: writes fail closed with 503, reads are
// served uncounted), here with the in-memory throttle answering as a shared store does (on a later
// turn of the event loop; guesses sent together all pass the peek before any is counted, as across
// replicas) and with a throttle whose store stops answering. Over startServer the SQLite throttle
// answers within one turn and never fails, so neither path could be reached.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createAccountWithKey } from '../../src/server/admin/accounts.js';
import { createApp } from '../../src/server/http/app.js';
import type { ServerStore } from '../../src/server/store/contract.js';
import { openSqliteStore } from '../../src/server/store/sqlite/store.js';
import { createThrottle, type Throttle } from '../../src/server/store/throttle.js';
import { manualClock } from '../helpers/manual-clock.js';
import { request } from '../helpers/server.js';

const WRONG = 'wrong-key-0123456789abc';

/**
 * `inner` counted elsewhere: each call answers on a later turn of the event loop, and fails while
 * `down` as an unreachable store does. The first `heldPeeks` peeks are answered together once all of
 * them are asked: guesses sent together that all pass the peek before any is counted.
 */
function remote(inner: Throttle, heldPeeks = 0): Throttle & { down: boolean } {
  const waiting: (() => void)[] = [];
  const later = <T>(call: () => Promise<T>) =>
    new Promise<T>((resolve, reject) =>
      setImmediate(() =>
        store.down ? reject(new Error('the throttle store does not answer')) : call().then(resolve, reject),
      ),
    );
  const store = {
    down: false,
    hit: (key: string) => later(() => inner.hit(key)),
    async peek(key: string) {
      if (heldPeeks > 0) {
        heldPeeks -= 1;
        const held = new Promise<void>((release) => waiting.push(release));
        if (heldPeeks === 0) for (const release of waiting.splice(0)) release();
        await held;
      }
      return later(() => inner.peek(key));
    },
    take: (key: string) => later(() => inner.take(key)),
  };
  return store;
}

const running: { app: FastifyInstance; store: ServerStore }[] = [];
afterEach(async () => {
  for (const { app, store } of running.splice(0)) {
    await app.close();
    await store.close();
  }
});

/** The app on an in-memory SQLite store, its throttles `remote`: `perKey` a minute, `failures` per client. */
async function gate(limits: { perKey: number; failures: number; heldPeeks?: number }) {
  const clock = manualClock(1_000_000); // the window never ends within a test
  const store = openSqliteStore(':memory:');
  const { key } = await createAccountWithKey(store, 'throttled');
  const throttle = remote(createThrottle(limits.perKey, 60_000, clock.now));
  const failedAuth = remote(createThrottle(limits.failures, 60_000, clock.now), limits.heldPeeks);
  const app = await createApp({ store, mode: 'normal', baseUrl: () => '', throttle, failedAuthThrottle: failedAuth });
  running.push({ app, store });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, key, throttle, failedAuth };
}

const list = (url: string, key: string) => request(url, 'GET', '/api/v1/websites', { key });

describe('the failed-authentication throttle on SQLite', () => {
  it('100 wrong keys sent together with a limit of 10: exactly 10 × 401, the rest 429, then a right key too', async () => {
    const { url, key } = await gate({ perKey: 1000, failures: 10, heldPeeks: 100 });
    const responses = await Promise.all(Array.from({ length: 100 }, () => list(url, WRONG)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(90);
    const refused = responses.find((response) => response.status === 429)!;
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await list(url, key)).status).toBe(429);
  });
});

describe('the API throttle on SQLite', () => {
  it('100 requests sent together with a limit of 60: exactly 60 served, each count seen once', async () => {
    const { url, key } = await gate({ perKey: 60, failures: 30 });
    const responses = await Promise.all(Array.from({ length: 100 }, () => list(url, key)));
    const served = responses.filter((response) => response.status === 200);
    expect(served).toHaveLength(60);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(40);
    const left = served.map((response) => Number(response.headers.get('x-ratelimit-remaining')));
    expect(new Set(left).size).toBe(60);
  });
});

describe('when the throttle cannot count', () => {
  it('fails closed for writes (503, Retry-After, nothing stored) and serves reads without rate-limit headers', async () => {
    const { url, key, throttle, failedAuth } = await gate({ perKey: 60, failures: 30 });
    expect((await list(url, key)).headers.get('x-ratelimit-remaining')).toBe('59');
    throttle.down = true;
    failedAuth.down = true;

    const write = await request(url, 'POST', '/api/v1/websites', { key, form: { domain: 'x.example' } });
    expect(write.status).toBe(503);
    expect(write.body).toEqual({ message: 'Service Unavailable.', status: 503 });
    expect(write.headers.get('retry-after')).toBe('1');
    const wrongWrite = await request(url, 'POST', '/api/v1/websites', { key: WRONG, form: { domain: 'y.example' } });
    expect(wrongWrite.status).toBe(503);

    const read = await list(url, key);
    expect(read.status).toBe(200);
    expect(read.body.meta.total).toBe(0); // nothing stored
    expect(read.headers.get('x-ratelimit-remaining')).toBeNull();
    expect((await list(url, WRONG)).status).toBe(401);

    throttle.down = false;
    failedAuth.down = false;
    const back = await request(url, 'POST', '/api/v1/websites', { key, form: { domain: 'x.example' } });
    expect(back.status).toBe(201);
    expect(back.headers.get('x-ratelimit-remaining')).toBe('58');
  });
});
