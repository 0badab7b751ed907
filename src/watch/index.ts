/**
 * `sitesync watch` put together: the engine port with its request budget,
 * the reconcile loop, metrics, alerts over webhooks and the status server.
 * The CLI (cli/commands/watch.ts) only turns flags into `WatchSettings`,
 * wires signals and maps the end to an exit code; tests start it in-process
 * on a manual clock.
 */
import type { Clock } from '../api/clock.js';
import type { WebsitesApi } from '../api/index.js';
import type { Journal } from '../apply/journal.js';
import { SitesyncError } from '../model/errors.js';
import { enginePort } from './engine-port.js';
import type { HealPolicy } from './heal-policy.js';
import type { TargetSource } from './load-targets.js';
import type { Logger } from './log.js';
import { loadMetrics, type WatchMetrics } from './metrics.js';
import type { StatusToken } from './page/access.js';
import type { WatchPort } from './port.js';
import { type StatusServer, startStatusServer } from './status-server.js';
import { Watcher } from './watcher.js';
import { type Webhook, Webhooks } from './webhooks.js';

export interface WatchSettings {
  source: TargetSource;
  intervalMs: number;
  budgetPerMinute: number;
  /** Checks at once, each on a different service (`--concurrency`; default 32). */
  concurrency?: number | undefined;
  renotifyMs: number;
  heal?: HealPolicy | undefined;
  webhooks: readonly Webhook[];
  /** Where /metrics, /healthz, /readyz, /status and the status page listen; none without. */
  metricsAddress?: { host: string; port: number } | undefined;
  /** `--status-token-env`: the page and /status need it (page/access.ts); open without. */
  statusToken?: StatusToken | undefined;
  /** `--public-url`: the page's address as people reach it; alerts link to their target's page. */
  publicUrl?: string | undefined;
  clock: Clock;
  /** Wall time, epoch milliseconds. */
  now: () => number;
  log: Logger;
  /** `--log-level debug`: the clients' request lines too. */
  debug?: boolean | undefined;
  journal?: Journal | undefined;
  /** Run before each reload: git-pull mode (git-pull.ts). */
  beforeReload?: ((signal: AbortSignal) => Promise<void>) | undefined;
  /** Tests: told of each client opened, to count the requests it sends. */
  onClient?: ((target: string, api: WebsitesApi) => void) | undefined;
  /** Replaces the engine (tests of the loop alone). */
  port?: WatchPort;
  /** Replicas sharing the work through this PostgreSQL database (--coordination-env); none: one process owns all. */
  coordination?: { url: string; replica?: string | undefined } | undefined;
}

export interface RunningWatch {
  watcher: Watcher;
  metrics: WatchMetrics;
  webhooks: Webhooks;
  /** The status server's base URL, when listening. */
  url?: string | undefined;
  /** Runs until `watcher.stop()`, or until `cycles` cycles have run since the start. */
  run(cycles?: number): Promise<void>;
  /** Gives up webhook retries, closes the clients and the status server. */
  close(): Promise<void>;
}

export async function startWatch(settings: WatchSettings): Promise<RunningWatch> {
  const { log, clock, publicUrl } = settings;
  const metrics = await loadMetrics(settings.metricsAddress !== undefined);
  const webhooks = new Webhooks(settings.webhooks, { clock, log });
  const port =
    settings.port ??
    enginePort({
      ...settings.source,
      budgetPerMinute: settings.budgetPerMinute,
      clock,
      now: () => new Date(settings.now()),
      allowDelete: settings.heal?.allowDelete ?? [],
      journal: settings.journal,
      onRequest: (target, status) => metrics.request(target, status),
      notice: (target, line) => log('warn', line, { target }),
      ...(settings.debug === true && { requestLog: (target: string, line: string) => log('debug', line, { target }) }),
      beforeReload: settings.beforeReload,
      onClient: settings.onClient,
    });
  const coordination =
    settings.coordination === undefined
      ? undefined
      : await (await loadPostgresCoordination())({
          url: settings.coordination.url,
          log,
          now: settings.now,
          ...(settings.coordination.replica !== undefined && { id: settings.coordination.replica }),
        });
  const watcher = new Watcher({
    coordination,
    port,
    clock,
    now: settings.now,
    intervalMs: settings.intervalMs,
    concurrency: settings.concurrency,
    renotifyMs: settings.renotifyMs,
    heal: settings.heal,
    metrics,
    notify: (document) => webhooks.send(document),
    log,
    linkOf: publicUrl === undefined ? undefined : (target) => `${publicUrl}/targets/${encodeURIComponent(target)}`,
  });
  let server: StatusServer | undefined;
  if (settings.metricsAddress !== undefined)
    server = await startStatusServer(settings.metricsAddress, watcher, metrics, {
      token: settings.statusToken,
      secureCookie: publicUrl?.startsWith('https:') === true,
      now: settings.now,
    });
  return {
    watcher,
    metrics,
    webhooks,
    url: server?.url,
    run: (cycles) => watcher.run(cycles),
    async close() {
      webhooks.stop();
      await Promise.all([webhooks.idle(), port.close(), server?.close(), coordination?.close()]);
    },
  };
}

/** The PostgreSQL coordination, loaded only when asked for: pg is an optional dependency. */
async function loadPostgresCoordination() {
  try {
    return (await import('./coordination/postgres.js')).postgresCoordination;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes("'pg'")) throw error;
    throw new SitesyncError(
      'usage',
      '--coordination-env needs the package pg, which a CLI-only install (--omit=optional) leaves out: reinstall sitesync without --omit=optional',
    );
  }
}

export { HEAL_MODES, type HealMode, type HealPolicy } from './heal-policy.js';
export { createLogger, type Level, type Logger } from './log.js';
export { parseAddress } from './status-server.js';
export type { Webhook } from './webhooks.js';
export { parseWindow, type Window } from './window.js';
