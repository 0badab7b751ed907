/**
 * Helpers of the watch tests: a webhook receiver (real HTTP, records each
 * JSON body, can fail the first N deliveries), the request log of a reference
 * server on the manual clock, the largest number of requests in any window,
 * and `sitesync watch` started in-process on a manual clock.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { Clock } from '../../src/api/clock.js';
import type { WebsitesApi } from '../../src/api/index.js';
import type { Journal } from '../../src/apply/journal.js';
import type { AlertDocument } from '../../src/watch/alerts.js';
import { enginePort } from '../../src/watch/engine-port.js';
import { createLogger, type RunningWatch, startWatch, type WatchSettings } from '../../src/watch/index.js';
import { manualClock } from '../helpers/manual-clock.js';
import { virtualClock } from '../helpers/virtual-clock.js';

export interface Receiver {
  url: string;
  bodies: AlertDocument[];
  close(): Promise<void>;
}

/** `failFirst` deliveries are answered 503; with `hang`, none is ever answered. */
export async function webhookReceiver(
  failFirst = 0,
  hang = false,
): Promise<Receiver & { received: number; firstRequest: Promise<void> }> {
  const bodies: AlertDocument[] = [];
  let failures = failFirst;
  let arrived = () => {};
  const receiver = { received: 0, firstRequest: new Promise<void>((resolve) => (arrived = resolve)) };
  const server = createServer((request, response) => {
    receiver.received += 1;
    arrived();
    if (hang) return;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (failures > 0) {
        failures--;
        response.writeHead(503).end();
        return;
      }
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/T0KEN-0123456789abcdef`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/**
 * A server's requests: `arrivals` on the manual clock (its throttle's clock,
 * read as each request arrives) and `statuses` (its request log). `aside` runs
 * a request of the test itself, left out of both. `busy` (for virtualClock)
 * holds time still until every request the watched clients sent has arrived.
 */
export function requestLog(clock: Pick<Clock, 'now'>) {
  const arrivals: number[] = [];
  const statuses: number[] = [];
  const clients: WebsitesApi[] = [];
  const sent = () => clients.reduce((sum, api) => sum + api.stats.requests, 0);
  let quiet = false;
  return {
    arrivals,
    statuses,
    throttleClock: () => {
      if (!quiet) arrivals.push(clock.now());
      return clock.now();
    },
    log: (line: string) => {
      if (!quiet) statuses.push((JSON.parse(line) as { status: number }).status);
    },
    addClient: (api: WebsitesApi) => clients.push(api),
    /** For virtualClock: a request the watched clients sent has not arrived yet. */
    busy: () => arrivals.length < sent(),
    async settle() {
      while (arrivals.length < sent()) await new Promise((resolve) => setImmediate(resolve));
    },
    async aside<T>(work: () => Promise<T>): Promise<T> {
      quiet = true;
      try {
        return await work();
      } finally {
        quiet = false;
      }
    },
  };
}

/** The most requests that started within any `windowMs`. */
export function busiestWindow(times: readonly number[], windowMs = 60_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/**
 * A virtual clock that moves only while the loop of the watch it is attached
 * to waits and none of its checks runs: time passes between checks, never
 * during one. For watches whose checks never wait for the budget (they would
 * wait forever); budget tests move time on `requestLog(…).busy` instead.
 */
export function watchClock(start: number) {
  let watcher: { awake: number } | undefined;
  const clock = virtualClock(start, () => watcher !== undefined && watcher.awake > 0);
  return Object.assign(clock, {
    attach: (watch: { awake: number }) => {
      watcher = watch;
    },
  });
}

/** `sitesync watch` in-process; its log lines are kept in `lines`. */
export async function watchInProcess(
  settings: Omit<WatchSettings, 'log' | 'now'> & { now?: () => number },
): Promise<RunningWatch & { lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const now = settings.now ?? settings.clock.now;
  const log = createLogger({ format: 'json', level: 'debug', now, write: (line) => lines.push(JSON.parse(line)) });
  const watch = await startWatch({ ...settings, now, log });
  (settings.clock as Partial<ReturnType<typeof watchClock>>).attach?.(watch.watcher);
  return Object.assign(watch, { lines });
}

export const MINUTE = 60_000;

/** `sitesync watch`'s flags as commander gives them with their defaults (an hour's interval, JSON logs). */
export const CLI_FLAGS = {
  interval: '1h',
  budget: '20/min',
  renotify: '24h',
  gitRemote: 'origin',
  logFormat: 'json',
  logLevel: 'info',
};

/** Cleanups run after each test of the file, last first: `const cleanups = useCleanups()`. */
export function useCleanups(): (() => Promise<void>)[] {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/**
 * The engine port watch checks and heals through, over the configuration in `dir` with `env`, at
 * `at` on a manual clock (heals off unless asked): the port alone, without the loop. Closed by `cleanups`.
 */
export function enginePortOver(
  cleanups: (() => Promise<void>)[],
  dir: string,
  env: Record<string, string>,
  options: { heals?: boolean; journal?: Journal | undefined; at?: number } = {},
) {
  const at = options.at ?? 0;
  const port = enginePort({
    journal: options.journal,
    files: [],
    targets: [],
    cwd: dir,
    env,
    insecureHttp: false,
    heals: options.heals ?? false,
    budgetPerMinute: 1000,
    clock: manualClock(at),
    now: () => new Date(at),
    allowDelete: [],
    onRequest: () => {},
    notice: () => {},
  });
  cleanups.push(() => port.close());
  return port;
}

/**
 * Watch over one server's account (no `targets:`; SITESYNC_URL and
 * SITESYNC_API_KEY) with the configuration in `cwd`: a 1-minute interval,
 * a budget of 20, a day's renotify, no webhook, unless `extra` says otherwise.
 * Closed by `cleanups`.
 */
export async function watchOneAccount(
  server: { url: string; key: string },
  cwd: string,
  cleanups: (() => Promise<void>)[],
  extra: Partial<Parameters<typeof watchInProcess>[0]> & Pick<WatchSettings, 'clock'>,
) {
  const watch = await watchInProcess({
    source: {
      files: [],
      targets: [],
      cwd,
      env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key },
      insecureHttp: false,
      heals: extra.heal !== undefined,
    },
    intervalMs: MINUTE,
    budgetPerMinute: 20,
    renotifyMs: 24 * 60 * MINUTE,
    webhooks: [],
    ...extra,
  });
  cleanups.push(() => watch.close());
  return watch;
}

export async function getText(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

export { fleetConfig } from '../../bench/fleet/config.js';
