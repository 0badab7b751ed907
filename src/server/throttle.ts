/**
 * Per-key request throttle: a fixed window per key (like Laravel's limiter,
 * the window starts at the key's first request). Counts live in memory;
 * a restart forgets them, as a cache-backed limiter would.
 */

export interface ThrottleResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export interface Throttle {
  hit(key: string): ThrottleResult;
}

/** `clock` (milliseconds) is injectable: a test can share one manual clock with the client. */
export function createThrottle(limit: number, windowMs = 60_000, clock: () => number = Date.now): Throttle {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key) {
      const now = clock();
      let window = windows.get(key);
      if (!window || now - window.start >= windowMs) {
        window = { start: now, count: 0 };
        windows.set(key, window);
        // Forget expired windows now and then so the map stays small.
        if (windows.size > 10_000) {
          for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
        }
      }
      window.count += 1;
      const retryAfter = Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
      return { allowed: window.count <= limit, limit, remaining: Math.max(0, limit - window.count), retryAfter };
    },
  };
}
