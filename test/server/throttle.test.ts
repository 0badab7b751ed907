// The in-memory throttle's own contract (the API throttle on SQLite, and the failed-authentication
// throttle): its windows, the Retry-After and reset it reports, the atomic take, and the sweep
// that keeps a client rotating keys or addresses from growing its map without end.
import { describe, expect, it } from 'vitest';
import { createThrottle } from '../../src/server/store/throttle.js';
import { manualClock } from '../helpers/manual-clock.js';

const MINUTE = 60_000;

describe('the in-memory throttle', () => {
  it('reports the seconds left in the window, at least 1, and when it resets', async () => {
    const clock = manualClock(1_000_000);
    const throttle = createThrottle(2, MINUTE, clock.now);
    expect(await throttle.hit('k')).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      retryAfter: 60,
      resetAt: 1_060_000,
    });
    clock.advance(30_000);
    expect(await throttle.hit('k')).toMatchObject({ allowed: true, remaining: 0, retryAfter: 30, resetAt: 1_060_000 });
    clock.advance(29_500);
    expect(await throttle.hit('k')).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1, resetAt: 1_060_000 });
    clock.advance(500);
    expect(await throttle.hit('k')).toMatchObject({ allowed: true, remaining: 1, retryAfter: 60, resetAt: 1_120_000 });
  });

  it('reports a key with no window as a full one starting now', async () => {
    const clock = manualClock(5_000);
    const throttle = createThrottle(3, MINUTE, clock.now);
    expect(await throttle.peek('new')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 3,
      retryAfter: 60,
      resetAt: 65_000,
    });
  });

  it('takes exactly up to the limit, and refuses past it until the window ends', async () => {
    const clock = manualClock();
    const throttle = createThrottle(2, MINUTE, clock.now);
    expect((await throttle.take('k')).allowed).toBe(true);
    expect((await throttle.take('k')).allowed).toBe(true);
    expect(await throttle.take('k')).toMatchObject({ allowed: false, remaining: 0 });
    expect(await throttle.peek('k')).toMatchObject({ allowed: false, remaining: 0 });
    clock.advance(MINUTE);
    expect(await throttle.take('k')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('sweeps expired windows only once it holds more than 10,000 keys', async () => {
    const clock = manualClock();
    const throttle = createThrottle(1, MINUTE, clock.now);
    await throttle.hit('first');
    clock.advance(MINUTE);
    await throttle.hit('second');
    expect(throttle.tracked).toBe(2); // one expired, kept while the map is small

    for (let i = 0; i < 9_998; i++) await throttle.hit(`a${i}`);
    expect(throttle.tracked).toBe(10_000);
    clock.advance(MINUTE - 1);
    await throttle.hit('b'); // 10,001 keys: 'first' has expired ('second' and the a's have 1 ms left)
    expect(throttle.tracked).toBe(10_000);
    clock.advance(1);
    await throttle.hit('c'); // exactly one window later: every earlier key has expired
    expect(throttle.tracked).toBe(2);
  });
});
