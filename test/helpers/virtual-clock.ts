/**
 * A clock for code that sleeps in several places at once (watch's loop beside
 * its checks, their rate limiters and webhook retries): each sleep is a timer
 * with a deadline, and time moves to the earliest deadline only when nothing
 * else can run: after the pending callbacks have run (a macrotask turn), once
 * `busy` says nobody is at work (e.g. no request whose rate-limit slot was
 * taken at this time is still on its way to its server). One timer fires
 * per step, in deadline order, so time never runs ahead of a sleeper
 * (manual-clock.ts moves time on each sleep: right for one sleeper at a time).
 */
import type { ManualClock } from './manual-clock.js';

interface Timer {
  at: number;
  order: number;
  fire: () => void;
}

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export function virtualClock(start = 0, busy: () => boolean = () => false): ManualClock {
  let now = start;
  let order = 0;
  let driving = false;
  const sleeps: number[] = [];
  const timers: Timer[] = [];

  const drive = async () => {
    if (driving) return;
    driving = true;
    try {
      while (timers.length > 0) {
        await macrotask();
        // Polled gently: the work it waits for needs the CPU more than this loop does.
        while (busy()) await new Promise((resolve) => setTimeout(resolve, 1));
        // Synchronous from the check to the firing: nothing is sent in between.
        timers.sort((a, b) => a.at - b.at || a.order - b.order);
        const next = timers.shift();
        if (next === undefined) break;
        now = Math.max(now, next.at);
        next.fire();
      }
    } finally {
      driving = false;
    }
  };

  return {
    sleeps,
    now: () => now,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      sleeps.push(ms);
      return new Promise<void>((resolve, reject) => {
        const timer: Timer = {
          at: now + Math.max(0, ms),
          order: order++,
          fire: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const index = timers.indexOf(timer);
          if (index >= 0) timers.splice(index, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        timers.push(timer);
        void drive();
      });
    },
    advance(ms) {
      now += ms;
    },
  };
}
