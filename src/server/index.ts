/**
 * The reference server's library entry: `startServer(options)` opens the
 * store, provisions accounts for the given keys and listens. Tests use it on
 * port 0 with `db: ':memory:'`; `sitesync serve` wraps it.
 */
import { type ProvisionReport, provisionKeys } from './admin/accounts.js';
import { createApp } from './http/app.js';
import { trustedProxies } from './http/client-address.js';
import { health, readiness } from './http/health.js';
import { checkSocketOptions, listen } from './http/listen.js';
import { atLevel, type LogLevel } from './http/log-level.js';
import type { QuirksName, ServerMode } from './http/mode.js';
import { OPENAPI_PATH, openApiDocument } from './http/openapi.js';
import { listenForMetrics, type MetricsListener, type Probes } from './metrics/listener.js';
import { createServerMetrics } from './metrics/series.js';
import type { ServerStore } from './store/contract.js';
import { isPostgresUrl, openPostgresStore } from './store/postgres/store.js';
import { openSqliteStore } from './store/sqlite/store.js';
import { createThrottle } from './store/throttle.js';

export {
  createAccountWithKey,
  describeProvisioning,
  type ProvisionReport,
  parseKeyList,
  provisionKeys,
} from './admin/accounts.js';
export { LOG_LEVELS, type LogLevel } from './http/log-level.js';
export type { QuirksName, ServerMode } from './http/mode.js';
export type {
  Account,
  AccountStore,
  ServerStore,
  WebsiteRecord,
  WebsiteStore,
  WebsiteValues,
} from './store/contract.js';
export { isPostgresUrl, openPostgresStore } from './store/postgres/store.js';
export { openSqliteStore } from './store/sqlite/store.js';

export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8080; 0 = any free port. */
  port?: number;
  /**
   * A Unix socket to listen on instead of host and port (created 0600): only whoever can open
   * the file reaches the server, as a proxy on the same machine. Needs `publicUrl`.
   */
  socket?: string;
  /** SQLite path (default ./sitesync.db; ':memory:' for tests), or a postgres:// URL. */
  db?: string;
  /** PostgreSQL only: connections in the pool (default 10). */
  poolSize?: number;
  /** PostgreSQL only: statements running longer are cancelled (default 5,000 ms). */
  statementTimeoutMs?: number;
  quirks?: QuirksName;
  /** Provision one account per key (idempotent), like SITESYNC_SERVE_KEYS. */
  keys?: string[];
  /** Requests per minute per key; default 60; 0 = off. */
  throttlePerMinute?: number;
  /** Throttle window in milliseconds (default 60,000); shorter in tests. */
  throttleWindowMs?: number;
  /** For tests: the throttle's time in milliseconds (default Date.now), e.g. a manual clock shared with a client. */
  throttleClock?: () => number;
  /** Website limit of accounts provisioned from now on (existing ones keep theirs); default unlimited. */
  websiteLimit?: number;
  /** One structured JSON line per request; default none. */
  log?: (line: string) => void;
  /** The least level logged: info (every request, default), warn (4xx, 5xx), error (5xx), silent. */
  logLevel?: LogLevel;
  /** SQLite only: the most pages the file may grow to (PRAGMA max_page_count); past it writes get 503 as on a full disk. */
  maxDbPages?: number;
  /** How long a write waits for another process's lock on the database before 503 (default 5,000 ms). */
  lockWaitMs?: number;
  /** SQLite only: told once when opening the file waits for another process's lock (up to 60 s). */
  onLockWait?: () => void;
  /** Largest accepted request body in bytes (default 64 KiB); larger → 413. */
  bodyLimit?: number;
  /** Failed authentications per minute per client IP before 429; default 30; 0 = off. */
  failedAuthPerMinute?: number;
  /**
   * Client IP and scheme from X-Forwarded-*: set by the proxies at these addresses or CIDR ranges
   * (`['127.0.0.1/32']`), or with `true` by one proxy in front, whoever connects (default off).
   */
  trustProxy?: boolean | readonly string[];
  /** The URL clients reach the server at (e.g. https://sites.example.com), for page links and redirects. */
  publicUrl?: string;
  /** A request not received in full by then is cut off with 408; default 30,000 ms. */
  requestTimeoutMs?: number;
  /** On close, in-flight requests get this long to finish before their connections close; default 10,000 ms. */
  shutdownGraceMs?: number;
  /** `HOST:PORT` of a separate listener answering `GET /metrics` (Prometheus); default none. */
  metricsAddr?: string;
}

export interface RunningServer {
  url: string;
  /** The metrics endpoint, when `metricsAddr` was given. */
  metricsUrl?: string;
  /** The storage behind the server, for tests that check the database or add accounts. */
  store: ServerStore;
  /** What provisioning `keys` changed at start. */
  provisioning: ProvisionReport;
  close(): Promise<void>;
}

/** `https://host/prefix/` → `https://host/prefix`: links append `/api/v1/websites` to it. */
export function publicBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`the public URL must be an absolute http(s) URL, not "${text}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new Error(`the public URL must be an http(s) URL without query, fragment or credentials, not "${text}"`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** `/health`, `/ready` and the OpenAPI document, for the operator's listener. */
function operatorProbes(store: ServerStore, mode: ServerMode, closing: () => boolean): Probes {
  const document = openApiDocument(mode);
  return {
    '/health': health,
    '/ready': () => readiness({ ping: () => store.ping(), closing }),
    [OPENAPI_PATH]: async () => ({ status: 200, body: document }),
  };
}

/** The backend named by `db`: a postgres:// URL, else an SQLite file. */
async function openStore(options: ServerOptions): Promise<ServerStore> {
  const db = options.db ?? './sitesync.db';
  if (isPostgresUrl(db)) {
    return openPostgresStore(db, {
      ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
      ...(options.statementTimeoutMs !== undefined && { statementTimeoutMs: options.statementTimeoutMs }),
    });
  }
  return openSqliteStore(db, {
    ...(options.lockWaitMs !== undefined && { lockWaitMs: options.lockWaitMs }),
    ...(options.maxDbPages !== undefined && { maxPages: options.maxDbPages }),
    ...(options.onLockWait && { onLockWait: options.onLockWait }),
  });
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  // Checked before the store is opened: a mistyped address must not create a database file first.
  const trust = options.trustProxy ?? false;
  if (options.socket !== undefined) checkSocketOptions(options.trustProxy, options.publicUrl);
  const trustProxy = typeof trust === 'boolean' ? Number(trust) : trustedProxies(trust);
  const store = await openStore(options);
  try {
    const mode: ServerMode = options.quirks ?? 'normal';
    const provision = () => provisionKeys(store, options.keys ?? [], { websiteLimit: options.websiteLimit ?? null });
    const provisioning = await (store.exclusive ? store.exclusive(provision) : provision());
    const perMinute = options.throttlePerMinute ?? 60;
    const log = atLevel(options.log, options.logLevel ?? 'info');
    const failuresPerMinute = options.failedAuthPerMinute ?? 30;
    const clock = options.throttleClock ?? Date.now;
    // Laravel's limiter counts whole seconds: the window starts at the first hit's second, so a
    // 429 later in that window says 59, and waiting Retry-After always reaches the next window.
    const throttleClock = mode === 'normal' ? clock : () => Math.floor(clock() / 1000) * 1000;
    const windowMs = options.throttleWindowMs ?? 60_000;
    // On PostgreSQL the counts live in the database, so every replica counts the same windows.
    const throttleOf = (scope: string, limit: number, time: () => number) =>
      store.sharedThrottle ? store.sharedThrottle(scope, limit, windowMs, time) : createThrottle(limit, windowMs, time);
    let baseUrl = options.publicUrl === undefined ? '' : publicBase(options.publicUrl);
    const metrics = options.metricsAddr === undefined ? undefined : await createServerMetrics(store);
    const throttle = perMinute > 0 ? throttleOf(mode === 'normal' ? 'key' : 'ip', perMinute, throttleClock) : undefined;
    const failedAuth = failuresPerMinute > 0 ? throttleOf('failed-auth', failuresPerMinute, Date.now) : undefined;
    const app = await createApp({
      store,
      mode,
      baseUrl: () => baseUrl,
      ...(options.publicUrl !== undefined && { publicUrl: baseUrl }),
      ...(throttle && { throttle: metrics ? metrics.countRefusals(throttle, 'throttle') : throttle }),
      ...(failedAuth && {
        failedAuthThrottle: metrics ? metrics.countRefusals(failedAuth, 'auth_failures') : failedAuth,
      }),
      ...(metrics && { metrics }),
      trustProxy,
      ...(options.requestTimeoutMs !== undefined && { requestTimeoutMs: options.requestTimeoutMs }),
      ...(log && { log }),
      ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    });
    let metricsListener: MetricsListener | undefined;
    let closing = false;
    // Quirks mode keeps the API port to the deployed service's paths: the probes move here.
    const probes = mode === 'normal' ? {} : operatorProbes(store, mode, () => closing);
    if (metrics) metricsListener = await listenForMetrics(metrics.registry, options.metricsAddr!, probes);
    let url: string;
    try {
      url = await listen(app, options);
    } catch (error) {
      await metricsListener?.close();
      throw error;
    }
    baseUrl ||= url;
    return {
      url,
      ...(metricsListener && { metricsUrl: metricsListener.url }),
      store,
      provisioning,
      close: async () => {
        closing = true;
        // In-flight requests may finish within the grace period; then their connections are closed.
        const grace = setTimeout(() => app.server.closeAllConnections(), options.shutdownGraceMs ?? 10_000);
        try {
          await app.close();
        } finally {
          clearTimeout(grace);
          await metricsListener?.close();
          await store.close();
        }
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
