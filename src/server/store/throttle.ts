/**
 * Request throttles: a fixed window per key that starts at the key's first hit
 * (like Laravel's limiter). Used per API key (the API throttle) and per client
 * IP (failed authentications). Counts live in memory, so a restart forgets
 * them, as a cache-backed limiter would. The interface is asynchronous so that
 * a store shared by several servers can implement it.
 */

export interface ThrottleResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
  /** When the window resets (milliseconds, on the throttle's clock). */
  resetAt: number;
}

export interface Throttle {
  /** Counts one hit; `allowed` is false past the limit. */
  hit(key: string): Promise<ThrottleResult>;
  /** The key's state without counting: `allowed` is false once the limit is reached. */
  peek(key: string): Promise<ThrottleResult>;
  /**
   * Counts one hit only while the count is below the limit, as one atomic step:
   * `allowed` says whether it was counted. Concurrent callers can never pass the
   * limit between a check and a count (failed authentications use it).
   */
  take(key: string): Promise<ThrottleResult>;
}

/** The in-memory throttle: `tracked` says how many keys it holds (expired ones are swept past 10,000). */
export interface MemoryThrottle extends Throttle {
  readonly tracked: number;
}

interface Window {
  start: number;
  count: number;
}

/** `clock` (milliseconds) is injectable: a test can share one manual clock with the client. */
export function createThrottle(limit: number, windowMs = 60_000, clock: () => number = Date.now): MemoryThrottle {
  const windows = new Map<string, Window>();
  const current = (key: string, now: number): Window | undefined => {
    const window = windows.get(key);
    return window && now - window.start < windowMs ? window : undefined;
  };
  const result = (window: Window | undefined, now: number, allowed: boolean): ThrottleResult => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - (window?.count ?? 0)),
    retryAfter: Math.max(1, Math.ceil(((window?.start ?? now) + windowMs - now) / 1000)),
    resetAt: (window?.start ?? now) + windowMs,
  });
  return {
    get tracked() {
      return windows.size;
    },
    async hit(key) {
      return count(key, clock());
    },
    async peek(key) {
      const now = clock();
      const window = current(key, now);
      return result(window, now, (window?.count ?? 0) < limit);
    },
    async take(key) {
      const now = clock();
      const window = current(key, now);
      // Synchronous from the check to the count: nothing can interleave.
      return (window?.count ?? 0) < limit ? count(key, now) : result(window, now, false);
    },
  };
  function count(key: string, now: number): ThrottleResult {
    let window = current(key, now);
    if (!window) {
      window = { start: now, count: 0 };
      windows.set(key, window);
      // Forget expired windows now and then so the map stays small.
      if (windows.size > 10_000) {
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
      }
    }
    window.count += 1;
    return result(window, now, window.count <= limit);
  }
}
