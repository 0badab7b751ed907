/**
 * The client-side rate limiter shared by every request of one client, so a
 * normal run sees no 429 at all. A sliding log: at most `limit` requests start
 * in any window (plus a small margin for network jitter), which also stays
 * within a fixed-window or token-bucket server throttle of the same size.
 * It adapts to the server: a lower `X-RateLimit-Limit` lowers the limit (the
 * configured one is a ceiling), and a `X-RateLimit-Remaining` below what we
 * expect (another client on the same IP or key, or an earlier run) is counted
 * as requests we did not send. Until the first answer has been seen, one
 * request at a time: a burst must not spend a budget an earlier run already
 * used. A 429 pauses everyone for `Retry-After`, and its end is the end of
 * the server's window (nothing counted before it still counts after). A wait of `noticeAfterMs`
 * or longer is announced (`notice`) before it starts: a silent minute looks
 * like a hang.
 */
import { type Clock, systemClock } from './clock.js';

export interface RateLimiterOptions {
  /** Requests per window; 0 = no client-side limit (429s are still honoured). */
  limit: number;
  windowMs?: number;
  clock?: Clock;
  /** Told about each wait of at least `noticeAfterMs` (default 5,000), before it starts: one line for a person. */
  notice?: ((line: string) => void) | undefined;
  noticeAfterMs?: number;
}

export class RateLimiter {
  readonly #windowMs: number;
  /** The window as configured (without the margin), for messages. */
  readonly #configuredWindowMs: number;
  readonly #clock: Clock;
  readonly #notice: ((line: string) => void) | undefined;
  readonly #noticeAfterMs: number;
  #limit: number;
  /** Start times of requests in the current window, ascending. */
  #log: number[] = [];
  #pausedUntil = 0;
  #queue: Promise<void> = Promise.resolve();
  /** Settles when the first request has been answered (or failed). */
  #firstAnswer: Promise<void> | undefined;
  #answered = () => {};
  /** Whether the first answer has been seen (or the probe failed): from then on, no one waits for it. */
  #probeDone = false;
  /** Calls of `acquire` not yet finished: while any is queued, nobody may jump the queue. */
  #waiting = 0;

  constructor(options: RateLimiterOptions) {
    const windowMs = options.windowMs ?? 60_000;
    this.#windowMs = windowMs + Math.max(50, windowMs * 0.02);
    this.#configuredWindowMs = windowMs;
    this.#limit = options.limit;
    this.#clock = options.clock ?? systemClock;
    this.#notice = options.notice;
    this.#noticeAfterMs = options.noticeAfterMs ?? 5_000;
  }

  get limit(): number {
    return this.#limit;
  }

  /**
   * Takes a slot now if one is free and nobody is queued (the common case, and
   * every request when there is no limit and no pause); false means: call
   * `acquire`. Saves a promise chain per request.
   */
  tryAcquire(): boolean {
    if (this.#waiting > 0 || (this.#limit > 0 && !(this.#firstAnswer && this.#probeDone))) return false;
    const now = this.#clock.now();
    if (this.#waitAt(now) > 0) return false;
    if (this.#limit > 0) this.#log.push(now);
    return true;
  }

  /** Waits for a slot (in arrival order) and takes it; returns the milliseconds waited. */
  async acquire(signal?: AbortSignal): Promise<number> {
    this.#waiting++;
    const previous = this.#queue;
    let release = () => {};
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      throwIfAborted(signal); // stopped while queued: no wait, and no notice, for a request that will not be sent
      if (this.#firstAnswer) await this.#firstAnswer;
      else if (this.#limit > 0) this.#firstAnswer = new Promise((resolve) => (this.#answered = resolve));
      return await this.#take(signal);
    } catch (error) {
      this.#probeDone = true;
      this.#answered(); // the probe will never be answered: do not hold the others back
      throw error;
    } finally {
      this.#waiting--;
      release();
    }
  }

  async #take(signal: AbortSignal | undefined): Promise<number> {
    let waited = 0;
    for (;;) {
      const now = this.#clock.now();
      const wait = this.#waitAt(now);
      if (wait <= 0) {
        if (this.#limit > 0) this.#log.push(now);
        return waited;
      }
      throwIfAborted(signal);
      if (wait >= this.#noticeAfterMs) this.#announce(wait, this.#pausedUntil - now >= wait);
      await this.#clock.sleep(wait, signal);
      waited += wait;
    }
  }

  /** How long the first request in the queue still waits (0 when nobody waits): the progress line's heartbeat. */
  waitingMs(): number {
    if (this.#waiting === 0) return 0;
    return Math.max(0, this.#waitAt(this.#clock.now()));
  }

  /**
   * How long until `requests` more requests have all started at the current
   * limit, log and pause: the time left a progress line shows (the rate of
   * the first changes, sent in a burst, would put it near zero). Undefined
   * without a client-side limit or a pause: then nothing but the server sets the pace.
   */
  estimateMs(requests: number): number | undefined {
    const now = this.#clock.now();
    this.#expire(now);
    const first = Math.max(now, this.#pausedUntil);
    if (this.#limit === 0) return first > now ? first - now : undefined;
    if (this.#log.length + requests <= this.#limit) return first - now; // all fit in the window
    const starts = [...this.#log];
    let last = first;
    for (let i = 0; i < requests; i++) {
      const blocking = starts.length >= this.#limit ? (starts[starts.length - this.#limit] ?? now) : -Infinity;
      last = Math.max(last, blocking + this.#windowMs);
      starts.push(last);
    }
    return last - now;
  }

  #waitAt(now: number): number {
    this.#expire(now);
    const pause = this.#pausedUntil - now;
    if (this.#limit === 0 || this.#log.length < this.#limit) return pause;
    const oldestCounted = this.#log[this.#log.length - this.#limit] ?? now;
    return Math.max(pause, oldestCounted + this.#windowMs - now);
  }

  #announce(wait: number, paused: boolean): void {
    const seconds = `waiting ${Math.max(1, Math.round(wait / 1000))} s`;
    if (paused) {
      this.#notice?.(`rate limited: ${seconds} (429 from server)`);
      return;
    }
    const per =
      this.#configuredWindowMs === 60_000 ? '/min' : ` per ${Math.round(this.#configuredWindowMs / 100) / 10} s`;
    this.#notice?.(`pacing at ${this.#limit} requests${per}: ${seconds}`);
  }

  #expire(now: number): void {
    let expired = 0;
    while (expired < this.#log.length && (this.#log[expired] ?? now) <= now - this.#windowMs) expired++;
    if (expired > 0) this.#log.splice(0, expired);
  }

  /** Learns from `X-RateLimit-Limit` / `X-RateLimit-Remaining` of any answer; call it after every attempt. */
  observe(serverLimit: number | undefined, serverRemaining: number | undefined): void {
    this.#probeDone = true;
    this.#answered();
    if (this.#limit === 0) return;
    if (serverLimit !== undefined && serverLimit > 0 && serverLimit < this.#limit) this.#limit = serverLimit;
    if (serverRemaining === undefined) return;
    const now = this.#clock.now();
    this.#expire(now);
    const unseen = this.#limit - this.#log.length - serverRemaining;
    for (let i = 0; i < unseen; i++) this.#log.push(now);
  }

  /**
   * A 429's `Retry-After`: nobody starts a request before it has passed. The
   * server's window ends then, so every request counted so far (ours and the
   * unseen ones of other clients) leaves the log by then too: without this the
   * log, filled at the 429, would hold the next request back a whole window more.
   */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#clock.now() + ms);
    const leavesBy = this.#pausedUntil - this.#windowMs;
    this.#log = this.#log.map((started) => Math.min(started, leavesBy));
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}
