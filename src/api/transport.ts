/**
 * One HTTP attempt over an undici keep-alive pool: the headers every request
 * carries (Bearer key, Accept JSON, User-Agent, form content type), connect /
 * headers / body timeouts, and the translation of socket failures into
 * `network` errors that say whether the request may have reached the server.
 * No retries, pacing or status interpretation here (see requester.ts).
 */
import { Pool } from 'undici';
import { SitesyncError } from '../model/errors.js';
import type { Secret } from '../model/secret.js';
import { VERSION } from '../version.js';

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
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: Secret;
  connections: number;
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/** Bodies past this size are not a website list; refusing them bounds memory. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Failures that happen before a request is written: the server cannot have seen it. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH']);

export class Transport {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #origin: string;
  readonly #headers: Record<string, string>;
  readonly #headersMs: number;

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
      maxResponseSize: MAX_BODY_BYTES,
    });
    this.#headersMs = options.headersMs;
    this.#headers = {
      authorization: `Bearer ${options.apiKey.reveal()}`,
      accept: 'application/json',
      'user-agent': `sitesync/${VERSION}`,
    };
  }

  get origin(): string {
    return this.#origin;
  }

  /** The path as sent, for messages (base path included, never the key). */
  label(request: HttpRequest): string {
    return `${request.method} ${this.#basePath}${request.path}`;
  }

  async send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    const headers =
      request.form === undefined
        ? this.#headers
        : { ...this.#headers, 'content-type': 'application/x-www-form-urlencoded' };
    // undici's own timers tick about once a second; this one is exact, so short test timeouts mean what they say.
    const attempt = new AbortController();
    const forward = () => attempt.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    let headersLate = false;
    const timer = setTimeout(() => {
      headersLate = true;
      attempt.abort();
    }, this.#headersMs);
    try {
      const response = await this.#pool.request({
        method: request.method,
        path: `${this.#basePath}${request.path}`,
        headers,
        body: request.form ?? null,
        signal: attempt.signal,
      });
      clearTimeout(timer);
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      const code = headersLate && !signal.aborted ? 'UND_ERR_HEADERS_TIMEOUT' : errorCode(error);
      throw this.#networkError(error, code, request, signal);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', forward);
    }
  }

  #networkError(error: unknown, code: string, request: HttpRequest, signal: AbortSignal): unknown {
    if (error instanceof SitesyncError) return error;
    if (signal.aborted) return signal.reason;
    const sent = !NOT_SENT.has(code);
    const reason = describeNetworkCode(code, error);
    return new SitesyncError(
      'network',
      `${this.label(request)} to ${this.#origin}: ${reason}`,
      { method: request.method, path: request.path, reason: code, sent },
      { cause: error },
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
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return 'the answer is larger than 64 MB';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
