import { afterEach, describe, expect, it } from 'vitest';
import { type Setup, seed, setup } from './support.js';

/** A short throttle window keeps these tests to a couple of seconds. */
const WINDOW_MS = 400;

describe('pacing against a throttled server', () => {
  let env: Setup;
  afterEach(() => env.close());

  it('sees zero 429s at a tight limit: 10 per window, 25 pages, 4 at a time', async () => {
    env = await setup('normal', { throttlePerMinute: 10, throttleWindowMs: WINDOW_MS });
    await seed(env.server, 2_500);
    const client = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: WINDOW_MS, concurrency: 4 });
    expect(await client.listWebsites()).toHaveLength(2_500);
    expect(client.stats).toEqual({ requests: 25, retries: 0, throttled: 0 });
  });

  it("adapts to the server's lower X-RateLimit-Limit and still sees zero 429s", async () => {
    env = await setup('phpanalytics-v31', { throttlePerMinute: 5, throttleWindowMs: WINDOW_MS });
    await seed(env.server, 1_200);
    const client = env.connect({ rateLimitPerMinute: 60, rateLimitWindowMs: WINDOW_MS, concurrency: 4 });
    expect(await client.listWebsites()).toHaveLength(1_200);
    expect(client.stats).toEqual({ requests: 12, retries: 0, throttled: 0 });
  });

  it('counts what an earlier run already spent of the window (X-RateLimit-Remaining)', async () => {
    env = await setup('normal', { throttlePerMinute: 10, throttleWindowMs: 1_000 });
    await seed(env.server, 500);
    const earlier = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: 1_000 });
    for (let id = 1; id <= 7; id++) await earlier.getWebsite(id);
    const client = env.connect({ rateLimitPerMinute: 10, rateLimitWindowMs: 1_000, concurrency: 4 });
    expect(await client.listWebsites()).toHaveLength(500);
    expect(client.stats).toEqual({ requests: 5, retries: 0, throttled: 0 });
  });

  it('honours Retry-After when a 429 does come, then resumes and completes', async () => {
    env = await setup('normal', { throttlePerMinute: 4, throttleWindowMs: 1_000 });
    await seed(env.server, 600);
    const lines: string[] = [];
    const client = env.connect({ rateLimitPerMinute: 0, concurrency: 2, logger: (line) => lines.push(line) });
    expect(await client.listWebsites()).toHaveLength(600);
    expect(client.stats.throttled).toBeGreaterThan(0);
    expect(lines.some((line) => /in 1000 ms \(HTTP 429\)$/.test(line))).toBe(true);
  });
});
