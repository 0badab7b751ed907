/**
 * The server's Prometheus series (prom-client, one registry per server so
 * tests can run several). Every label is bounded: routes are fastify's route
 * templates (`/api/v1/websites/:id`, or `unmatched`), never raw paths; methods
 * are the few node's parser accepts; statuses and causes are small sets.
 * Store-side gauges (accounts, websites, pool, busy retries) are read from the
 * store's counters at scrape time, never by scanning websites.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type ServerStore, StoreBusyError, StoreFullError, type StoreStats } from '../store/contract.js';
import type { Throttle, ThrottleResult } from '../store/throttle.js';

/** Why a request was answered 503 (or why the store failed). */
export type UnavailableCause = 'busy' | 'disk_full' | 'database' | 'shutting_down' | 'not_ready' | 'other';

/** Seconds: from well under a millisecond (a cached page) to the 5 s statement timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

function storeErrorCause(error: unknown, store: ServerStore): UnavailableCause {
  if (error instanceof StoreBusyError) return 'busy';
  // The SQLite store reports SQLITE_FULL as StoreFullError (store/sqlite/full.ts); PostgreSQL's code comes as is.
  if (error instanceof StoreFullError || (error as { code?: unknown } | null)?.code === '53100') return 'disk_full';
  if (store.unavailable?.(error)) return 'database';
  return 'other';
}

export async function createServerMetrics(store: ServerStore) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'sitesync_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'sitesync_http_request_duration_seconds',
    help: 'Time from request received to response sent, by route template and method.',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rejections = new Counter({
    name: 'sitesync_rejections_total',
    help: 'Requests refused by the API throttle (429), the failed-authentication throttle (429), or for a missing or unknown key (401).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const unavailable = new Counter({
    name: 'sitesync_unavailable_total',
    help: 'Answers 503, by cause: busy (SQLite locked), disk_full, database (PostgreSQL cannot answer), shutting_down, not_ready (/ready), other.',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'sitesync_store_errors_total',
    help: 'Errors thrown by the store while answering a request, by cause (other = answered 500).',
    labelNames: ['cause'] as const,
    registers: [registry],
  });
  for (const reason of ['throttle', 'auth_failures', 'unauthenticated'] as const) rejections.inc({ reason }, 0);
  for (const cause of ['busy', 'disk_full', 'database', 'shutting_down', 'not_ready', 'other'] as const) {
    unavailable.inc({ cause }, 0);
  }
  await registerStoreGauges(registry, store);

  return {
    registry,
    /** One answer: `route` is the route template (or `unmatched`), `cause` why a 503 was one. */
    answered(answer: { route: string; method: string; status: number; seconds: number; cause?: UnavailableCause }) {
      const { route, method, status } = answer;
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, answer.seconds);
      if (status === 401) rejections.inc({ reason: 'unauthenticated' });
      if (status === 503) unavailable.inc({ cause: answer.cause ?? 'other' });
    },
    /** An error thrown while answering (not an HTTP answer): counted, and its cause returned. */
    storeError(error: unknown): UnavailableCause {
      const cause = storeErrorCause(error, store);
      storeErrors.inc({ cause });
      return cause;
    },
    /**
     * The throttle, counting its refusals: the API throttle refuses on `hit`; the
     * failed-authentication throttle on `peek` (already over) or `take` (counting one more).
     */
    countRefusals(throttle: Throttle, reason: 'throttle' | 'auth_failures'): Throttle {
      const refusing = reason === 'throttle' ? ['hit'] : ['peek', 'take'];
      const watched: Record<string, unknown> = { ...throttle };
      for (const [name, method] of Object.entries(throttle) as [string, (key: string) => Promise<ThrottleResult>][]) {
        if (typeof method !== 'function') continue;
        watched[name] = async (key: string) => {
          const result = await method.call(throttle, key);
          if (!result.allowed && refusing.includes(name)) rejections.inc({ reason });
          return result;
        };
      }
      return watched as unknown as Throttle;
    },
  };
}

export type ServerMetrics = Awaited<ReturnType<typeof createServerMetrics>>;

/** Gauges read from the store when scraped; a store that cannot answer leaves them at their last value. */
async function registerStoreGauges(registry: Registry, store: ServerStore): Promise<void> {
  // The first reading says which backend's series exist.
  let last: StoreStats | undefined = await store.stats?.().catch(() => undefined);
  let pending: Promise<void> | undefined;
  // One store query per scrape, shared by every gauge collected in it.
  const refresh = () => {
    pending ??= (async () => {
      try {
        last = await store.stats?.();
      } catch {
        // The database is down: /ready and the 503 counters say so; gauges keep their last value.
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };
  const gauge = (name: string, help: string, read: (stats: NonNullable<typeof last>) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        await refresh();
        const value = last && read(last);
        if (value !== undefined) this.set(value);
      },
    });
  gauge('sitesync_accounts', 'Accounts in the database.', (stats) => stats.accounts);
  gauge('sitesync_websites', 'Websites in the database, all accounts.', (stats) => stats.websites);
  if (last?.pool) {
    gauge('sitesync_pg_pool_in_use', 'PostgreSQL connections of this process in use.', (stats) => stats.pool?.inUse);
    gauge(
      'sitesync_pg_pool_waiting',
      'Queries of this process waiting for a connection.',
      (stats) => stats.pool?.waiting,
    );
  }
  if (last?.busyRetries !== undefined) {
    new Counter({
      name: 'sitesync_sqlite_busy_retries_total',
      help: 'Operations tried again because another connection held the SQLite lock.',
      registers: [registry],
      async collect() {
        await refresh();
        if (last?.busyRetries === undefined) return;
        this.reset();
        this.inc(last.busyRetries);
      },
    });
  }
}
