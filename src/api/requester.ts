/**
 * One logical request: paced by the shared rate limiter, retried with
 * exponential backoff and jitter where that is safe, bounded in attempts and
 * by a per-operation deadline, traced to the debug logger. POST is never
 * retried once it may have reached the server (only a 429, which the service
 * answers before doing anything, or a connection that never opened); the
 * client decides what an ambiguous POST means (see create.ts).
 */
import { SitesyncError } from '../model/errors.js';
import { redact } from '../model/secret.js';
import type { Clock } from './clock.js';
import type { RateLimiter } from './rate-limiter.js';
import { DeadlineExceeded, type HttpRequest, type HttpResponse, type Transport } from './transport.js';
import type { RequestStats } from './types.js';

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RequesterOptions {
  transport: Transport;
  limiter: RateLimiter;
  clock: Clock;
  retry: RetryPolicy;
  operationMs: number;
  stats: RequestStats;
  logger?: ((line: string) => void) | undefined;
  /** One line for a person about a backoff of at least `noticeAfterMs` (default 5,000). */
  notice?: ((line: string) => void) | undefined;
  noticeAfterMs?: number;
  /** A request without a complete answer this long gets a notice, repeated at this interval (default 10,000). */
  stallNoticeMs?: number;
  random?: () => number;
  /** Told the outcome of every attempt, retries included: an HTTP status, or 'error' without an answer. */
  onAttempt?: ((status: number | 'error') => void) | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Called as each attempt is about to be sent (see Cancellable.onSend). */
  onSend?: (() => void) | undefined;
  /** Retry a 500 (default: for GET and DELETE; an update re-checks the site instead). */
  retryServerError?: boolean;
}

export interface CallResult {
  response: HttpResponse;
  attempts: number;
}

const GATEWAY_STATUSES = new Set([502, 503, 504]);

function headerNumber(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/** `Retry-After` in milliseconds (seconds form; an HTTP date is treated as absent), 0 when absent. */
function retryAfterMs(response: HttpResponse): number {
  return (headerNumber(response.headers['retry-after']) ?? 0) * 1000;
}

/** Milliseconds as seconds to a tenth, for messages: `0.3`, `10`, `120`. */
const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/** `45 s`, `20 min`, `27 h`: a server's wish in the unit a person thinks in. */
function formatWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3_600)} h`;
}

export class Requester {
  readonly #options: RequesterOptions;

  constructor(options: RequesterOptions) {
    this.#options = options;
  }

  get transport(): Transport {
    return this.#options.transport;
  }

  async call(request: HttpRequest, options: CallOptions = {}): Promise<CallResult> {
    const { retry, clock, operationMs } = this.#options;
    const retryServerError = options.retryServerError ?? (request.method === 'GET' || request.method === 'DELETE');
    let spent = 0; // time in attempts and backoff; waiting for our own rate limiter does not count
    for (let attempt = 1; ; attempt++) {
      this.#checkInterrupted(options.signal, request);
      // The limiter's wait rejects with the signal's raw reason: it becomes `interrupted` here.
      if (!this.#options.limiter.tryAcquire()) {
        await this.#options.limiter.acquire(options.signal).catch((error: unknown) => {
          this.#checkInterrupted(options.signal, request);
          throw error;
        });
      }
      options.onSend?.();
      const started = clock.now();
      const outcome = await this.#attempt(request, operationMs - spent, options.signal);
      spent += clock.now() - started;
      const last = attempt >= retry.maxAttempts;
      if (outcome instanceof Error) {
        const sent = outcome.details?.sent !== false;
        if (last || (sent && request.method === 'POST') || outcome.code !== 'network') throw outcome;
        const reason = String(outcome.details?.reason ?? 'network error');
        spent += await this.#backoff(request, attempt, reason, undefined, options.signal);
      } else {
        const { status } = outcome;
        const retryable =
          status === 429 ||
          (request.method !== 'POST' && (GATEWAY_STATUSES.has(status) || (status === 500 && retryServerError)));
        // A Retry-After longer than the whole operation may take is a refusal, not a pause.
        if (status === 429 && retryAfterMs(outcome) > operationMs) throw this.#waitTooLong(request, outcome, attempt);
        if (!retryable || last) return { response: outcome, attempts: attempt };
        spent += await this.#backoff(request, attempt, `HTTP ${status}`, outcome, options.signal);
      }
      if (spent >= operationMs) throw this.#deadlineError(request, attempt);
    }
  }

  async #attempt(request: HttpRequest, budgetMs: number, signal?: AbortSignal): Promise<HttpResponse | SitesyncError> {
    const { transport, stats, clock, limiter } = this.#options;
    const started = clock.now();
    stats.requests++;
    const stalled = this.#watchStall(request);
    try {
      const response = await transport.send(request, signal, Math.max(1, budgetMs));
      const { headers } = response;
      limiter.observe(headerNumber(headers['x-ratelimit-limit']), headerNumber(headers['x-ratelimit-remaining']));
      if (response.status === 429) stats.throttled++;
      this.#options.onAttempt?.(response.status);
      if (this.#options.logger) {
        this.#log(`${transport.label(request)} → ${response.status} (${Math.round(clock.now() - started)} ms)`);
      }
      return response;
    } catch (error) {
      limiter.observe(undefined, undefined);
      this.#options.onAttempt?.('error');
      this.#checkInterrupted(signal, request);
      if (error instanceof DeadlineExceeded) return this.#deadlineError(request, 1);
      if (error instanceof SitesyncError) {
        this.#log(error.message);
        return error;
      }
      throw error;
    } finally {
      clearInterval(stalled);
    }
  }

  /**
   * A silent server looks like a hung sitesync: while an attempt has no
   * complete answer, a notice every `stallNoticeMs` says what it waits for and
   * how long. Real time, like the transport's timeouts it runs beside.
   */
  #watchStall(request: HttpRequest): NodeJS.Timeout | undefined {
    const { notice, stallNoticeMs = 10_000, transport } = this.#options;
    if (!notice) return undefined;
    let waited = 0;
    const timer = setInterval(() => {
      waited += stallNoticeMs;
      notice(redact(`still waiting for an answer to ${transport.url(request)} (${seconds(waited)} s)`));
    }, stallNoticeMs);
    timer.unref();
    return timer;
  }

  /** A 429 whose `Retry-After` exceeds what a request may take (the operation deadline, `--timeout`). */
  #waitTooLong(request: HttpRequest, response: HttpResponse, attempts: number): SitesyncError {
    const wait = retryAfterMs(response);
    return new SitesyncError(
      'rate_limited',
      `${this.transport.label(request)} → 429: the server asked to wait ${formatWait(wait)} (Retry-After: ${wait / 1000}); giving up: a request may take at most ${seconds(this.#options.operationMs)} s (--timeout)`,
      { status: 429, method: request.method, path: request.path, attempts, retryAfterMs: wait },
    );
  }

  get maxAttempts(): number {
    return this.#options.retry.maxAttempts;
  }

  /** Exponential backoff with jitter: half fixed, half random, so retries spread out but never bunch at zero. */
  #delay(attempt: number): number {
    const { retry } = this.#options;
    const random = this.#options.random ?? Math.random;
    const exponential = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(exponential / 2 + (random() * exponential) / 2);
  }

  /** The wait before attempt `attempt + 1` of an operation the caller repeats itself (an ambiguous create). */
  async pause(attempt: number, reason: string, signal?: AbortSignal): Promise<void> {
    const delay = this.#delay(attempt);
    this.#options.stats.retries++;
    this.#log(`retry ${attempt + 1}/${this.maxAttempts} in ${delay} ms (${reason})`);
    this.#checkInterrupted(signal);
    this.#announce(delay, `retry ${attempt + 1}/${this.maxAttempts}`, reason);
    await this.#options.clock.sleep(delay, signal).catch((error: unknown) => {
      this.#checkInterrupted(signal);
      throw error;
    });
  }

  /** Waits before the next attempt; returns the milliseconds waited. */
  async #backoff(
    request: HttpRequest,
    attempt: number,
    reason: string,
    response: HttpResponse | undefined,
    signal?: AbortSignal,
  ): Promise<number> {
    const retryAfter = response ? retryAfterMs(response) : 0;
    // The server knows when its window ends (a 503's wish is capped like any backoff); otherwise back off exponentially.
    let delay = this.#delay(attempt);
    if (retryAfter > 0)
      delay = response?.status === 429 ? retryAfter : Math.min(retryAfter, this.#options.retry.maxDelayMs);
    this.#options.stats.retries++;
    this.#log(
      `retry ${attempt + 1}/${this.maxAttempts} of ${this.transport.label(request)} in ${delay} ms (${reason})`,
    );
    if (response?.status === 429) {
      // Everyone waits, not only this request: the limiter is shared.
      this.#options.limiter.pause(delay);
      return 0;
    }
    this.#checkInterrupted(signal, request); // no notice of a retry that will not happen
    this.#announce(delay, `retry ${attempt + 1}/${this.maxAttempts} of ${this.transport.label(request)}`, reason);
    await this.#options.clock.sleep(delay, signal).catch((error: unknown) => {
      this.#checkInterrupted(signal, request);
      throw error;
    });
    return delay;
  }

  /** A backoff long enough that a person would think the run hangs. */
  #announce(delay: number, what: string, reason: string): void {
    if (delay < (this.#options.noticeAfterMs ?? 5_000)) return;
    this.#options.notice?.(redact(`waiting ${Math.max(1, Math.round(delay / 1000))} s before ${what} (${reason})`));
  }

  /** Any abort of the caller's signal, wherever it is noticed, is one `interrupted` error. */
  #checkInterrupted(signal: AbortSignal | undefined, request?: HttpRequest): void {
    if (!signal?.aborted) return;
    const { reason: raw } = signal;
    const reason = raw instanceof Error ? (raw.name === 'AbortError' ? 'aborted' : raw.message) : String(raw);
    const what = request ? `${this.transport.label(request)} was not completed` : 'stopped while waiting to retry';
    throw new SitesyncError('interrupted', `interrupted: ${what} (${reason})`, {
      ...(request && { method: request.method, path: request.path }),
    });
  }

  #deadlineError(request: HttpRequest, attempts: number): SitesyncError {
    return new SitesyncError(
      'network',
      `${this.transport.label(request)} to ${this.transport.origin}: no complete answer within ${seconds(this.#options.operationMs)} s`,
      { method: request.method, path: request.path, reason: 'deadline', sent: true, attempts },
    );
  }

  #log(line: string): void {
    this.#options.logger?.(redact(line));
  }
}
