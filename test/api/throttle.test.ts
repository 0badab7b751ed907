// The client against a throttled reference server. Client and server share one
// manual clock that moves only when the client waits, so "zero 429s" is exact:
// no machine is too slow or too fast for it.
import { afterEach, describe, expect, it } from 'vitest';
import type { WebsitesApi } from '../../src/api/index.js';
import { type ManualClock, manualClock } from '../helpers/manual-clock.js';
import { type Setup, seed, setup } from './support.js';

const WINDOW_MS = 60_000;

describe('pacing against a throttled server', () => {
  let env: Setup;
  let clock: ManualClock;
  afterEach(() => env.close());

  /**
   * A server whose throttle runs on the shared clock; the clock moves on only
   * once every request the clients sent has reached the throttle.
   */
  async function throttled(mode: 'normal' | 'phpanalytics-v31', perWindow: number) {
    let arrived = 0;
    const sent = () => clients.reduce((sum, each) => sum + each.stats.requests, 0);
    const clients: WebsitesApi[] = [];
    clock = manualClock(1_000_000, async () => {
      while (arrived < sent()) await new Promise((resolve) => setImmediate(resolve));
    });
    const throttleClock = () => {
      arrived += 1;
      return clock.now();
    };
    const created = await setup(mode, { throttlePerMinute: perWindow, throttleWindowMs: WINDOW_MS, throttleClock });
    const connect = created.connect;
    created.connect = (options) => {
      const client = connect(options);
      clients.push(client);
      return client;
    };
    return created;
  }

  it('sees zero 429s at a tight limit: 10 per window, 25 pages, 4 at a time', async () => {
    env = await throttled('normal', 10);
    await seed(env.server, 2_500);
    const client = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: WINDOW_MS, concurrency: 4, clock });
    expect(await client.listWebsites()).toHaveLength(2_500);
    expect(client.stats).toEqual({ requests: 25, retries: 0, throttled: 0 });
    // 25 requests at 10 a window: two full windows waited (each with the client's margin).
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(2 * WINDOW_MS);
  });

  it("adapts to the server's lower X-RateLimit-Limit and still sees zero 429s", async () => {
    env = await throttled('phpanalytics-v31', 5);
    await seed(env.server, 1_200);
    const client = env.connect({ rateLimitPerMinute: 60, rateLimitWindowMs: WINDOW_MS, concurrency: 4, clock });
    expect(await client.listWebsites()).toHaveLength(1_200);
    expect(client.stats).toEqual({ requests: 12, retries: 0, throttled: 0 });
  });

  it('counts what an earlier run already spent of the window (X-RateLimit-Remaining)', async () => {
    env = await throttled('normal', 10);
    await seed(env.server, 500);
    const earlier = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: WINDOW_MS, clock });
    for (let id = 1; id <= 7; id++) await earlier.getWebsite(id);
    const client = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: WINDOW_MS, concurrency: 4, clock });
    expect(await client.listWebsites()).toHaveLength(500);
    expect(client.stats).toEqual({ requests: 5, retries: 0, throttled: 0 });
  });

  it.each(['normal', 'phpanalytics-v31'] as const)(
    'a 429 50 s into a window spent by another client costs its Retry-After (10 s), not a window more (%s)',
    async (mode) => {
      env = await throttled(mode, 60);
      await seed(env.server, 250);
      const other = env.connect({ rateLimitPerMinute: 0, clock });
      for (let id = 1; id <= 60; id++) await other.getWebsite(id);
      clock.advance(50_000);
      const started = clock.now();
      const client = env.connect({ rateLimitPerMinute: 60, rateLimitWindowMs: WINDOW_MS, concurrency: 4, clock });
      expect(await client.listWebsites()).toHaveLength(250);
      expect(client.stats.throttled).toBe(1);
      const elapsed = clock.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(10_000);
      expect(elapsed).toBeLessThan(15_000);
    },
  );

  it('honours Retry-After when a 429 does come, then resumes and completes', async () => {
    env = await throttled('normal', 4);
    await seed(env.server, 600);
    const lines: string[] = [];
    const client = env.connect({
      rateLimitPerMinute: 0,
      concurrency: 2,
      clock,
      timeouts: { operationMs: 10 * WINDOW_MS },
      logger: (line) => lines.push(line),
    });
    expect(await client.listWebsites()).toHaveLength(600);
    expect(client.stats.throttled).toBeGreaterThan(0);
    expect(lines.some((line) => /in 60000 ms \(HTTP 429\)$/.test(line))).toBe(true);
  });
});
