/**
 * `sitesync serve`'s numeric options read and checked (each a usage error
 * naming the option), the line it prints once it listens, and its request log's writer.
 */
import { SitesyncError } from '../model/errors.js';
import type { LineWriter } from '../server/http/log-writer.js';
import type { RunningServer } from '../server/index.js';
import type { MetricsListenError } from '../server/metrics/listener.js';
import { type Io, OutputFailed, redact } from './io.js';
import { wholeNumberOption } from './option-values.js';
import { shownDb } from './serve-db.js';
import { importServer } from './server-modules.js';

export interface ServeNumbers {
  port: string;
  throttle: string;
  authFailures: string;
  requestTimeout: string;
  shutdownGrace: string;
  poolSize: string;
  statementTimeout: string;
}

const integer = (name: string, text: string, min: number, max: number): number =>
  wholeNumberOption(`--${name}`, text, { min, max });

export function serveNumbers(options: ServeNumbers) {
  return {
    port: integer('port', options.port, 0, 65535),
    throttlePerMinute: integer('throttle', options.throttle, 0, 1_000_000),
    failedAuthPerMinute: integer('auth-failures', options.authFailures, 0, 1_000_000),
    requestTimeoutMs: integer('request-timeout', options.requestTimeout, 1, 3600) * 1000,
    shutdownGraceMs: integer('shutdown-grace', options.shutdownGrace, 0, 3600) * 1000,
    poolSize: integer('pool-size', options.poolSize, 1, 1000),
    statementTimeoutMs: integer('statement-timeout', options.statementTimeout, 1, 3600) * 1000,
  };
}

/** Why the server did not start, in one line naming the address that failed: the API's or the metrics'. */
export function startFailure(
  error: unknown,
  options: { host: string; port: number; socket?: string | undefined; db: string },
): SitesyncError {
  if (error instanceof Error && error.name === 'MetricsListenError') {
    const { address, reason } = error as MetricsListenError;
    return new SitesyncError('network', `cannot serve metrics on ${address} (--metrics-addr): ${reason}`);
  }
  const reason = (error as { code?: string }).code ?? (error as Error).message;
  const where = options.socket === undefined ? `${options.host}:${options.port}` : `unix:${options.socket}`;
  return new SitesyncError('network', `cannot serve on ${where} with database ${shownDb(options.db)}: ${reason}`);
}

/** `sitesync serve: listening on …`: where, which database (no password), links, metrics and keys. */
/** Said at once when opening the SQLite file waits for another process's lock (it waits synchronously). */
export function lockWaitLine(db: string): string {
  return `sitesync serve: ${shownDb(db)} is locked by another process; waiting up to 60 s\n`;
}

export function listeningLine(
  server: RunningServer,
  options: { db: string; quirks?: string | undefined; publicUrl?: string | undefined },
  keys: number,
): string {
  const mode = options.quirks ? ` (quirks: ${options.quirks})` : '';
  const links = options.publicUrl === undefined ? '' : `, links to ${options.publicUrl}`;
  const metrics = server.metricsUrl === undefined ? '' : `, metrics on ${server.metricsUrl}`;
  const keyWords =
    keys === 0
      ? 'no SITESYNC_SERVE_KEYS (provisioned keys left as they are)'
      : `${keys} key(s) from SITESYNC_SERVE_KEYS`;
  return `sitesync serve: listening on ${server.url}${mode}, database ${shownDb(options.db)}${links}${metrics}, ${keyWords}\n`;
}

/**
 * Behind a real stderr, request lines go out asynchronously (a stalled reader
 * must not stall requests). If writing them fails (a full disk), that is said
 * once on stdout, unless stderr's own failure already was (process-io.ts).
 */
export async function requestLogWriter(io: Io): Promise<LineWriter | undefined> {
  if (io.stderr.fd === undefined) return undefined;
  const { asyncLineWriter } = await importServer(() => import('../server/http/log-writer.js'));
  return asyncLineWriter(io.stderr.fd, redact, (error) => {
    if (io.outputClosed?.reason instanceof OutputFailed) return;
    io.stdout.write(`sitesync: ${new OutputFailed('stderr', error).message}\n`);
  });
}
