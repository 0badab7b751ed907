/**
 * One HTTP attempt over an undici keep-alive pool: the headers every request
 * carries (Bearer key, Accept JSON, User-Agent, form content type), connect /
 * headers / body timeouts, and the translation of socket failures into
 * `network` errors that say whether the request may have reached the server.
 * No retries, pacing or status interpretation here (see requester.ts).
 */
import type { Dispatcher } from 'undici';
// Only the pool, not undici's index: its fetch, WebSocket, cache and mock modules cost every plan ~60 ms of start-up and ~8 MB.
import Pool from 'undici/lib/dispatcher/pool.js';
import { SitesyncError } from '../model/errors.js';
import type { Secret } from '../model/secret.js';
import { VERSION } from '../version.js';
import { type JsonExcess, JsonShape, MAX_JSON_DEPTH, MAX_JSON_VALUES } from './json-shape.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Path below the base URL, with query: `/api/v1/websites?page=2`. */
  path: string;
  /** A form-urlencoded body. */
  form?: string;
}

export interface HttpResponse {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  text: string;
  /** The parsed body when it is a JSON object or array (parsed under the deadline); absent otherwise. */
  json?: { value: unknown };
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: Secret;
  connections: number;
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/**
 * The largest answer read, in bytes (64 MiB): a page of 100 websites is about
 * 30 KB, and about 13 MB even with every list at the service's 65,535-byte
 * field limit. A larger answer is not a website list: it is refused at once,
 * and not retried, so a hostile or broken server cannot fill memory (issue 23).
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Failures that happen before a request is written: the server cannot have seen it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH']);

export class Transport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #origin: string;
  readonly #headers: Record<string, string>;
  readonly #headersMs: number;
  readonly #formHeaders: Record<string, string>;

  constructor(options: TransportOptions) {
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(this.#origin, {
      connections: options.connections,
      keepAliveTimeout: 10_000,
      headersTimeout: options.headersMs,
      bodyTimeout: options.bodyMs,
      connect: { timeout: options.connectMs },
    });
    this.#headersMs = options.headersMs;
    this.#headers = {
      authorization: `Bearer ${options.apiKey.reveal()}`,
      accept: 'application/json',
      'user-agent': `sitesync/${VERSION}`,
    };
    this.#formHeaders = { ...this.#headers, 'content-type': 'application/x-www-form-urlencoded' };
  }

  get origin(): string {
    return this.#origin;
  }

  /** `GET https://host/base/api/v1/websites`: the whole address, for a person waiting on it (never the key). */
  url(request: HttpRequest): string {
    return `${request.method} ${this.#origin}${this.#basePath}${request.path}`;
  }

  /** The path as sent, for messages (base path included, never the key). */
  label(request: HttpRequest): string {
    return `${request.method} ${this.#basePath}${request.path}`;
  }

  /**
   * One attempt. Rejects with the caller's abort reason when `signal` aborts,
   * with `DeadlineExceeded` when `budgetMs` passes first (the operation's
   * deadline), and with a `network` error otherwise. No AbortController or
   * stream per attempt: a dispatch handler collects the body, and one exact
   * timer covers both the headers timeout and the deadline (undici's own
   * timers tick about once a second, so short test timeouts would not mean
   * what they say).
   */
  send(request: HttpRequest, signal?: AbortSignal, budgetMs = Number.POSITIVE_INFINITY): Promise<HttpResponse> {
    const headers = request.form === undefined ? this.#headers : this.#formHeaders;
    return new Promise<HttpResponse>((resolve, reject) => {
      const attempt = new Attempt(this, request, signal, budgetMs, resolve, reject);
      if (attempt.settled) return; // aborted before it started
      this.#pool.dispatch(
        {
          method: request.method,
          path: `${this.#basePath}${request.path}`,
          headers,
          body: request.form ?? null,
        },
        attempt,
      );
    });
  }

  get headersMs(): number {
    return this.#headersMs;
  }

  /** The error for a failed attempt: the caller's reason when it aborted, else a `network` error. */
  networkError(error: unknown, code: string, request: HttpRequest, signal: AbortSignal | undefined): unknown {
    if (error instanceof SitesyncError) return error;
    if (signal?.aborted) return signal.reason;
    const sent = !NOT_SENT.has(code);
    const reason = describeNetworkCode(code, error);
    return new SitesyncError(
      'network',
      `${this.label(request)} to ${this.#origin}: ${reason}`,
      { method: request.method, path: request.path, reason: code, sent },
      { cause: error },
    );
  }

  /** An answer past MAX_RESPONSE_BYTES (counted, or announced by Content-Length): a `protocol` error, never retried. */
  tooLarge(request: HttpRequest): SitesyncError {
    const limit = `${MAX_RESPONSE_BYTES / 1024 / 1024} MiB (${MAX_RESPONSE_BYTES.toLocaleString('en-US')} bytes)`;
    return new SitesyncError(
      'protocol',
      `${this.label(request)} to ${this.#origin}: the answer is larger than ${limit}, the limit of one answer (a page of 100 websites is far smaller): refused; is this the websites service?`,
      { method: request.method, path: request.path, reason: 'too_large', limit: MAX_RESPONSE_BYTES },
    );
  }

  /** An answer whose JSON nests too deep or holds too many values (json-shape.ts): a `protocol` error, never retried. */
  tooComplex(request: HttpRequest, excess: JsonExcess): SitesyncError {
    const [what, limit] =
      excess === 'too_deep'
        ? [`nests deeper than ${MAX_JSON_DEPTH} levels (a website list has 4)`, MAX_JSON_DEPTH]
        : [
            `holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values (a page of 100 websites holds about 2,000)`,
            MAX_JSON_VALUES,
          ];
    return new SitesyncError(
      'protocol',
      `${this.label(request)} to ${this.#origin}: the answer's JSON ${what}: refused; is this the websites service?`,
      { method: request.method, path: request.path, reason: excess, limit },
    );
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}

function errorCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    if (code === 'UND_ERR_SOCKET' && !(current.cause instanceof Error)) return code;
    current = current.cause;
  }
  return 'UNKNOWN';
}

function describeNetworkCode(code: string, error: unknown): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the service running at this address?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before the answer was complete';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'timed out waiting for the answer';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out reading the answer';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** The operation's deadline passed during an attempt (the requester words the error). */
export class DeadlineExceeded extends Error {
  constructor() {
    super('deadline exceeded');
    this.name = 'DeadlineExceeded';
  }
}

const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';

/**
 * One attempt's undici handler: collects the body as text, settles the
 * promise exactly once, and aborts the request on the caller's signal or the
 * attempt's timer. The timer first fires at the earlier of the headers
 * timeout and the deadline; after the headers it only guards the deadline
 * (re-armed in the rare case it fires early, for a slow body).
 */
class Attempt implements Dispatcher.DispatchHandler {
  readonly #transport: Transport;
  readonly #request: HttpRequest;
  readonly #signal: AbortSignal | undefined;
  readonly #deadline: number;
  readonly #resolve: (response: HttpResponse) => void;
  readonly #reject: (error: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #settled = false;
  /** Why the attempt was given up before undici reported anything: aborted, headers timeout, deadline. */
  #giveUp: unknown;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  readonly #shape = new JsonShape();
  #onAbort: (() => void) | undefined;

  constructor(
    transport: Transport,
    request: HttpRequest,
    signal: AbortSignal | undefined,
    budgetMs: number,
    resolve: (response: HttpResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#transport = transport;
    this.#request = request;
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    const now = performance.now();
    this.#deadline = now + budgetMs;
    if (signal?.aborted) {
      this.#fail(signal.reason);
      return;
    }
    if (signal) {
      this.#onAbort = () => this.#fail(signal.reason);
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
    const first = Math.min(transport.headersMs, budgetMs);
    if (Number.isFinite(first)) this.#timer = setTimeout(() => this.#timeUp(), Math.max(1, first));
  }

  get settled(): boolean {
    return this.#settled;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#settled) controller.abort(this.#giveUp instanceof Error ? this.#giveUp : new Error('aborted'));
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    this.#headers = headers;
    if (Number(headers['content-length']) > MAX_RESPONSE_BYTES) this.#fail(this.#transport.tooLarge(this.#request));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#bytes += chunk.length;
    if (this.#bytes > MAX_RESPONSE_BYTES) {
      this.#fail(this.#transport.tooLarge(this.#request));
      return;
    }
    const excess = this.#shape.feed(chunk);
    if (excess !== undefined) this.#fail(this.#transport.tooComplex(this.#request, excess));
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    this.#chunks = [];
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    const response: HttpResponse = { status: this.#status, headers: this.#headers, text };
    // Bounded by its shape, parsed here so that the deadline covers the parse as well as the reading.
    if (this.#shape.isJson === true && performance.now() <= this.#deadline) {
      try {
        response.json = { value: JSON.parse(text) };
      } catch {
        // not JSON after all: the client says what it got
      }
    }
    if (performance.now() > this.#deadline) {
      this.#fail(new DeadlineExceeded());
      return;
    }
    this.#settle();
    this.#resolve(response);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#fail(this.#transport.networkError(error, errorCode(error), this.#request, this.#signal));
  }

  #timeUp(): void {
    this.#timer = undefined;
    if (this.#settled) return;
    const left = this.#deadline - performance.now();
    if (this.#status === 0 && !(left <= 0)) {
      const error = Object.assign(new Error('headers timeout'), { code: HEADERS_TIMEOUT });
      this.#fail(this.#transport.networkError(error, HEADERS_TIMEOUT, this.#request, this.#signal));
    } else if (left > 1) {
      this.#timer = setTimeout(() => this.#timeUp(), Math.max(1, left)); // headers arrived: only the deadline counts now
    } else {
      this.#fail(new DeadlineExceeded());
    }
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#giveUp = error;
    this.#settle();
    this.#chunks = [];
    this.#controller?.abort(error instanceof Error ? error : new Error('aborted'));
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#onAbort) this.#signal?.removeEventListener('abort', this.#onAbort);
  }
}
