/**
 * The reference server's library entry: `startServer(options)` opens the
 * store, provisions accounts for the given keys and listens. Tests use it on
 * port 0 with `db: ':memory:'`; `sitesync serve` wraps it.
 */
import { provisionKeys } from './accounts.js';
import { createApp } from './app.js';
import { atLevel, type LogLevel } from './log-level.js';
import type { QuirksName, ServerMode } from './mode.js';
import { openSqliteStore } from './sqlite-store.js';
import type { ServerStore } from './store.js';
import { createThrottle } from './throttle.js';

export { createAccountWithKey, parseKeyList, provisionKeys } from './accounts.js';
export { LOG_LEVELS, type LogLevel } from './log-level.js';
export type { QuirksName, ServerMode } from './mode.js';
export { openSqliteStore } from './sqlite-store.js';
export type { Account, AccountStore, ServerStore, WebsiteRecord, WebsiteStore, WebsiteValues } from './store.js';

export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8080; 0 = any free port. */
  port?: number;
  /** SQLite path, default ./sitesync.db; ':memory:' for tests. */
  db?: string;
  quirks?: QuirksName;
  /** Provision one account per key (idempotent), like SITESYNC_SERVE_KEYS. */
  keys?: string[];
  /** Requests per minute per key; default 60; 0 = off. */
  throttlePerMinute?: number;
  /** Throttle window in milliseconds (default 60,000); shorter in tests. */
  throttleWindowMs?: number;
  /** For tests: the throttle's time in milliseconds (default Date.now), e.g. a manual clock shared with a client. */
  throttleClock?: () => number;
  /** Website limit of provisioned accounts; default unlimited. */
  websiteLimit?: number;
  /** One structured JSON line per request; default none. */
  log?: (line: string) => void;
  /** The least level logged: info (every request, default), warn (4xx, 5xx), error (5xx), silent. */
  logLevel?: LogLevel;
  /** How long a write waits for another process's lock on the database before 503 (default 5,000 ms). */
  lockWaitMs?: number;
  /** Largest accepted request body in bytes (default 64 KiB); larger → 413. */
  bodyLimit?: number;
}

export interface RunningServer {
  url: string;
  /** The storage behind the server, for tests that check the database or add accounts. */
  store: ServerStore;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const store = openSqliteStore(options.db ?? './sitesync.db', {
    ...(options.lockWaitMs !== undefined && { lockWaitMs: options.lockWaitMs }),
  });
  try {
    const mode: ServerMode = options.quirks ?? 'normal';
    await provisionKeys(store, options.keys ?? [], { websiteLimit: options.websiteLimit ?? null });
    const perMinute = options.throttlePerMinute ?? 60;
    const log = atLevel(options.log, options.logLevel ?? 'info');
    const app = await createApp({
      store,
      mode,
      ...(perMinute > 0 && { throttle: createThrottle(perMinute, options.throttleWindowMs, options.throttleClock) }),
      ...(log && { log }),
      ...(options.bodyLimit !== undefined && { bodyLimit: options.bodyLimit }),
    });
    const host = options.host ?? '127.0.0.1';
    await app.listen({ host, port: options.port ?? 8080 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return {
      url: `http://${urlHost}:${port}`,
      store,
      close: async () => {
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
