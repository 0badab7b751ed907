/**
 * The throttles on PostgreSQL: the same fixed window as throttle.ts (it starts
 * at the key's first hit and lasts `windowMs`), counted in one shared table so
 * every replica sees the same count. One atomic upsert per hit: a new or
 * expired window restarts at 1, a current one is incremented, under the row
 * lock the upsert takes, so concurrent hits on several replicas never lose a
 * count; `take` adds the limit to the upsert's condition, so a failure is
 * counted (and answered 401) only while the window has room, at any concurrency.
 * Time comes from the injected clock (not the database's), so tests
 * drive windows with a manual clock as on SQLite. Expired windows are deleted
 * at most once per window length, by whichever hit notices first.
 */
import type pg from 'pg';
import type { Throttle, ThrottleResult } from '../throttle.js';

interface WindowRow {
  start: string;
  hits: number;
}

const HIT = `INSERT INTO throttle_windows AS t (scope, key, window_start, hits) VALUES ($1, $2, $3, 1)
  ON CONFLICT (scope, key) DO UPDATE SET
    hits = CASE WHEN t.window_start <= $3::bigint - $4::bigint THEN 1 ELSE t.hits + 1 END,
    window_start = CASE WHEN t.window_start <= $3::bigint - $4::bigint THEN $3 ELSE t.window_start END
  RETURNING window_start AS start, hits`;
/** HIT, but a current window already at the limit ($5) is left alone and no row returned: check and count in one statement. */
const TAKE = `INSERT INTO throttle_windows AS t (scope, key, window_start, hits) VALUES ($1, $2, $3, 1)
  ON CONFLICT (scope, key) DO UPDATE SET
    hits = CASE WHEN t.window_start <= $3::bigint - $4::bigint THEN 1 ELSE t.hits + 1 END,
    window_start = CASE WHEN t.window_start <= $3::bigint - $4::bigint THEN $3 ELSE t.window_start END
  WHERE t.window_start <= $3::bigint - $4::bigint OR t.hits < $5
  RETURNING window_start AS start, hits`;
const PEEK = `SELECT window_start AS start, hits FROM throttle_windows
  WHERE scope = $1 AND key = $2 AND window_start > $3::bigint - $4::bigint`;
const EXPIRE = 'DELETE FROM throttle_windows WHERE scope = $1 AND window_start <= $2::bigint - $3::bigint';

/**
 * `scope` separates the throttles sharing the table (the API throttle, failed
 * authentications). A query that fails rejects: the caller decides between
 * failing open and closed (auth.ts).
 */
export function createPgThrottle(
  pool: pg.Pool,
  scope: string,
  limit: number,
  windowMs = 60_000,
  clock: () => number = Date.now,
): Throttle {
  let lastExpiry = Number.NEGATIVE_INFINITY;
  const result = (row: WindowRow | undefined, now: number, allowed: boolean): ThrottleResult => {
    const start = row ? Number(row.start) : now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - (row?.hits ?? 0)),
      retryAfter: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
      resetAt: start + windowMs,
    };
  };
  async function expireOld(now: number): Promise<void> {
    if (now - lastExpiry < windowMs) return;
    lastExpiry = now;
    await pool.query(EXPIRE, [scope, now, windowMs]);
  }
  return {
    async hit(key) {
      const now = Math.floor(clock());
      await expireOld(now);
      const { rows } = await pool.query<WindowRow>(HIT, [scope, key, now, windowMs]);
      const row = rows[0]!;
      return result(row, now, row.hits <= limit);
    },
    async peek(key) {
      const now = Math.floor(clock());
      const { rows } = await pool.query<WindowRow>(PEEK, [scope, key, now, windowMs]);
      return result(rows[0], now, (rows[0]?.hits ?? 0) < limit);
    },
    async take(key) {
      const now = Math.floor(clock());
      await expireOld(now);
      const { rows } = await pool.query<WindowRow>(TAKE, [scope, key, now, windowMs, limit]);
      if (rows[0]) return result(rows[0], now, true);
      // Not counted: the window is full. Its start (for Retry-After) is read after the fact.
      const full = await pool.query<WindowRow>(PEEK, [scope, key, now, windowMs]);
      return result(full.rows[0] ?? { start: String(now), hits: limit }, now, false);
    },
  };
}
