/**
 * Request throttles: a fixed window per key that starts at the key's first hit
 * (like Laravel's limiter). rate-limiter-flexible keeps the counts; its memory
 * store is used now (a restart forgets the counts, as a cache-backed limiter
 * would), and its PostgreSQL store can replace it behind this interface when
 * several servers share one database. Used per API key (the API throttle) and
 * per client IP (failed authentications).
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface ThrottleResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export interface Throttle {
  /** Counts one hit; `allowed` is false past the limit. */
  hit(key: string): Promise<ThrottleResult>;
  /** The key's state without counting: `allowed` is false once the limit is reached. */
  peek(key: string): Promise<ThrottleResult>;
}

export function createThrottle(limit: number, windowMs = 60_000): Throttle {
  const limiter = new RateLimiterMemory({ points: limit, duration: windowMs / 1000 });
  const result = (state: RateLimiterRes | null, allowed: (used: number) => boolean): ThrottleResult => {
    const used = state?.consumedPoints ?? 0;
    const msLeft = state && state.msBeforeNext >= 0 ? state.msBeforeNext : windowMs;
    return {
      allowed: allowed(used),
      limit,
      remaining: Math.max(0, limit - used),
      retryAfter: Math.max(1, Math.ceil(msLeft / 1000)),
    };
  };
  return {
    async hit(key) {
      let state: RateLimiterRes;
      try {
        state = await limiter.consume(key);
      } catch (rejection) {
        // The library rejects with the window's state once past the limit.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        state = rejection;
      }
      return result(state, (used) => used <= limit);
    },
    async peek(key) {
      return result(await limiter.get(key), (used) => used < limit);
    },
  };
}
