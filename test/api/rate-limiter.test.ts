import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/api/clock.js';
import { RateLimiter } from '../../src/api/rate-limiter.js';

/** A clock that only moves when someone sleeps: tests run instantly and exactly. */
function fakeClock(): Clock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** Takes `count` slots one after another, answering each; returns the start times. */
async function take(
  limiter: RateLimiter,
  clock: Clock,
  count: number,
  answer = () => limiter.observe(undefined, undefined),
) {
  const starts: number[] = [];
  for (let i = 0; i < count; i++) {
    await limiter.acquire();
    starts.push(clock.now());
    answer();
  }
  return starts;
}

describe('RateLimiter', () => {
  it('lets `limit` requests start per window, then waits for the oldest to leave it (with a jitter margin)', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 3, windowMs: 1_000, clock });
    expect(await take(limiter, clock, 7)).toEqual([0, 0, 0, 1_050, 1_050, 1_050, 2_100]);
  });

  it('the default window is a minute with a 1.2 s margin', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 60, clock });
    const starts = await take(limiter, clock, 61);
    expect(starts[59]).toBe(0);
    expect(starts[60]).toBe(61_200);
  });

  it('0 means no client-side limit', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 0, clock });
    await take(limiter, clock, 1_000);
    expect(clock.sleeps).toEqual([]);
  });

  it("lowers its limit to the server's X-RateLimit-Limit, never raises it above the configured one", async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 10, windowMs: 1_000, clock });
    limiter.observe(120, 119);
    expect(limiter.limit).toBe(10);
    limiter.observe(4, undefined);
    expect(limiter.limit).toBe(4);
  });

  it('counts what X-RateLimit-Remaining says was spent elsewhere (another run, another client on the IP)', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 10, windowMs: 1_000, clock });
    // The server has already counted 7 requests this window: ours is the 8th, so 2 remain.
    const starts = await take(limiter, clock, 4, () => limiter.observe(10, 2));
    expect(starts).toEqual([0, 0, 0, 1_050]);
  });

  it('a 429 pause holds every request until Retry-After has passed', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 0, clock });
    limiter.pause(2_000);
    await limiter.acquire();
    expect(clock.now()).toBe(2_000);
  });

  it('sends one request first, and the rest only once it has been answered', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 5, windowMs: 1_000, clock });
    const order: string[] = [];
    await limiter.acquire();
    const second = limiter.acquire().then(() => order.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    order.push('answer');
    limiter.observe(5, 4);
    await second;
    expect(order).toEqual(['answer', 'second']);
  });

  it('an aborted wait rejects with the reason', async () => {
    const clock: Clock = {
      now: () => 0,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason));
        }),
    };
    const limiter = new RateLimiter({ limit: 1, windowMs: 1_000, clock });
    await limiter.acquire();
    limiter.observe(undefined, undefined);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it("estimates when n more requests will all have started (the progress line's time left)", async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ limit: 60, clock });
    expect(limiter.estimateMs(60)).toBe(0); // all fit in the window
    await take(limiter, clock, 10);
    expect(limiter.estimateMs(50)).toBe(0);
    // The 51st waits for the first start (at 0) to leave the window of 60 s + 2 % margin.
    expect(limiter.estimateMs(51)).toBe(61_200);
    expect(limiter.estimateMs(111)).toBe(122_400);
    limiter.pause(5_000);
    expect(limiter.estimateMs(1)).toBe(5_000);
    expect(new RateLimiter({ limit: 0, clock }).estimateMs(1_000)).toBeUndefined(); // no limit: no estimate
  });
});
