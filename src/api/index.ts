/**
 * The REST client's public surface: `createClient(options)` → `WebsitesApi`,
 * and `resolveConnection` for the CLI (URL and key from flags, environment
 * and config). Wires transport, rate limiter and requester together with the
 * defaults below; everything is overridable for tests and benchmarks.
 */
import type { Secret } from '../model/secret.js';
import { ApiClient } from './client.js';
import { type Clock, systemClock } from './clock.js';
import { checkedUrl } from './connection.js';
import { RateLimiter } from './rate-limiter.js';
import { Requester } from './requester.js';
import { Transport } from './transport.js';
import type { RequestStats, WebsitesApi } from './types.js';

export {
  type ConfigUrl,
  type Connection,
  type ConnectionInput,
  connectionUrl,
  keyIdOf,
  resolveConnection,
} from './connection.js';
export { RateLimiter } from './rate-limiter.js';
export type { Pacing, RequestStats, WebsitesApi, WebsiteUpdate } from './types.js';

export interface ClientOptions {
  url: string;
  apiKey: Secret;
  /** Default 60; 0 = unlimited (tests, benches). */
  rateLimitPerMinute?: number;
  /** The window `rateLimitPerMinute` counts over (default 60,000 ms); shorter in tests. */
  rateLimitWindowMs?: number;
  /** Allow http:// to non-loopback hosts. */
  insecureHttp?: boolean;
  /** `--log-level debug` lines, secrets redacted. */
  logger?: (line: string) => void;
  /**
   * Lines a person should see at the default log level, secrets redacted: a
   * wait of `noticeAfterMs` or longer, before it starts ("rate limited:
   * waiting 58 s (429 from server)"), and a website setting that could not be
   * read (left out of the comparison, the rest of the listing is used).
   */
  notice?: (line: string) => void;
  /** The shortest wait that gets a notice; default 5,000 ms. */
  noticeAfterMs?: number;
  /** A request without a complete answer this long gets a notice ("still waiting for…"), repeated; default 10,000 ms. */
  stallNoticeMs?: number;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; operationMs?: number };
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Sockets, and concurrent page fetches. Default 4. */
  concurrency?: number;
  /**
   * A rate limiter shared with other clients (sitesync watch: one request
   * budget per service, whatever the number of targets on it); replaces
   * `rateLimitPerMinute` and `rateLimitWindowMs`.
   */
  limiter?: RateLimiter;
  /** Told the outcome of every HTTP attempt, retries included (a status, or 'error'): metrics. */
  onAttempt?: (status: number | 'error') => void;
  /** For tests: time and the favourite timestamp's clock. */
  clock?: Clock;
  now?: () => Date;
}

export const CLIENT_DEFAULTS = {
  rateLimitPerMinute: 60,
  noticeAfterMs: 5_000,
  stallNoticeMs: 10_000,
  concurrency: 4,
  timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, operationMs: 120_000 },
  retry: { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 15_000 },
} as const;

export function createClient(options: ClientOptions): WebsitesApi {
  const url = checkedUrl(options.url, options.insecureHttp ?? false);
  const timeouts = { ...CLIENT_DEFAULTS.timeouts, ...options.timeouts };
  const concurrency = Math.max(1, options.concurrency ?? CLIENT_DEFAULTS.concurrency);
  const clock = options.clock ?? systemClock;
  const stats: RequestStats = { requests: 0, retries: 0, throttled: 0 };
  const transport = new Transport({
    baseUrl: url,
    apiKey: options.apiKey,
    connections: concurrency,
    connectMs: timeouts.connectMs,
    headersMs: timeouts.headersMs,
    bodyMs: timeouts.bodyMs,
  });
  const noticeAfterMs = options.noticeAfterMs ?? CLIENT_DEFAULTS.noticeAfterMs;
  const limiter =
    options.limiter ??
    new RateLimiter({
      limit: options.rateLimitPerMinute ?? CLIENT_DEFAULTS.rateLimitPerMinute,
      ...(options.rateLimitWindowMs !== undefined && { windowMs: options.rateLimitWindowMs }),
      clock,
      notice: options.notice,
      noticeAfterMs,
    });
  const requester = new Requester({
    transport,
    limiter,
    clock,
    retry: { ...CLIENT_DEFAULTS.retry, ...options.retry },
    operationMs: timeouts.operationMs,
    stats,
    logger: options.logger,
    notice: options.notice,
    noticeAfterMs,
    stallNoticeMs: options.stallNoticeMs ?? CLIENT_DEFAULTS.stallNoticeMs,
    onAttempt: options.onAttempt,
  });
  return new ApiClient({
    url,
    requester,
    stats,
    pacing: limiter,
    concurrency,
    now: options.now ?? (() => new Date()),
    notice: options.notice,
  });
}
