/**
 * A clock that moves only when someone sleeps on it or the test advances it.
 * Given to the client (`clock`) and to the reference server's throttle
 * (`throttleClock: clock.now`), both see the same time: tests of windows,
 * pacing and Retry-After run instantly and exactly, whatever the machine's load.
 */
import type { Clock } from '../../src/api/clock.js';

export interface ManualClock extends Clock {
  /** Every sleep asked for, in order. */
  sleeps: number[];
  advance(ms: number): void;
}

/**
 * `settle`, when given, is awaited before time moves on a sleep: time must not
 * pass while requests the client already sent have not reached the server yet
 * (on a real network they arrive within the limiter's margin).
 */
export function manualClock(start = 0, settle?: () => Promise<void>): ManualClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      await settle?.();
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
    },
    advance(ms) {
      now += ms;
    },
  };
}
