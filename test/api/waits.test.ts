/**
 * The client's waits, against the reference server over real HTTP: a long
 * pacing, Retry-After or backoff wait is announced before it starts, and an
 * abort during a wait ends as `interrupted`, not the raw reason. Each abort
 * comes on an event (the wait's notice), never after a timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { manualClock } from '../helpers/manual-clock.js';
import { insertWebsite } from '../helpers/server.js';
import { type Setup, setup } from './support.js';

describe('waits and interrupts (reference server, real HTTP)', () => {
  let env: Setup;
  afterEach(() => env.close());
  it('an abort while a request waits on the rate limiter ends as interrupted, not the raw reason', async () => {
    env = await setup('normal');
    await insertWebsite(env.server, 'a.example.com');
    const controller = new AbortController();
    const client = env.connect({
      rateLimitPerMinute: 1,
      rateLimitWindowMs: 60_000,
      noticeAfterMs: 1_000,
      notice: () => controller.abort(new Error('SIGTERM')),
    });
    await client.getWebsite(1);
    const waiting = client.getWebsite(1, { signal: controller.signal });
    await expect(waiting).rejects.toMatchObject({
      name: 'SitesyncError',
      code: 'interrupted',
      message: 'interrupted: GET /api/v1/websites/1 was not completed (SIGTERM)',
    });
  });

  it('announces a long pacing wait before it starts', async () => {
    env = await setup('normal');
    await insertWebsite(env.server, 'a.example.com');
    const { lines, controller, notice } = abortOnNotice();
    // Time stands still between the two requests: the wait is exactly a window plus the margin.
    const client = env.connect({
      rateLimitPerMinute: 1,
      rateLimitWindowMs: 60_000,
      noticeAfterMs: 1_000,
      notice,
      clock: manualClock(),
    });
    await client.getWebsite(1);
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    expect(await waiting).toMatchObject({ code: 'interrupted' });
    expect(lines).toEqual(['pacing at 1 requests/min: waiting 61 s']);
  });

  it("announces a 429's Retry-After wait as rate limited", async () => {
    // The server's throttle on a clock that stands still: its Retry-After is exactly the window.
    const clock = manualClock();
    env = await setup('normal', { throttlePerMinute: 1, throttleWindowMs: 60_000, throttleClock: clock.now });
    await insertWebsite(env.server, 'a.example.com');
    const { lines, controller, notice } = abortOnNotice();
    const client = env.connect({
      rateLimitPerMinute: 0,
      timeouts: { operationMs: 120_000 },
      noticeAfterMs: 1_000,
      notice,
      clock,
    });
    await client.getWebsite(1);
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    expect(await waiting).toMatchObject({ code: 'interrupted' });
    expect(lines).toEqual(['rate limited: waiting 60 s (429 from server)']);
  });

  it('announces a long backoff, and an abort during it is interrupted', async () => {
    env = await setup('normal');
    const proxy = await startFaultProxy({ target: env.server.url, plan: () => 'html-503' });
    const { lines, controller, notice } = abortOnNotice(new Error('SIGINT'));
    const client = env.connect({
      url: proxy.url,
      retry: { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      noticeAfterMs: 500,
      notice,
    });
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    expect(await waiting).toMatchObject({
      code: 'interrupted',
      message: 'interrupted: GET /api/v1/websites/1 was not completed (SIGINT)',
    });
    expect(lines).toEqual(['waiting 1 s before retry 2/4 of GET /api/v1/websites/1 (HTTP 503)']);
    await proxy.close();
  });
});

/** A notice sink that keeps the lines and aborts the run at the first one (the wait has been announced). */
function abortOnNotice(reason?: Error) {
  const lines: string[] = [];
  const controller = new AbortController();
  const notice = (line: string) => {
    lines.push(line);
    controller.abort(reason);
  };
  return { lines, controller, notice };
}
