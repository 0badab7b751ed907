/**
 * From a request to a client: the connection (URL, key, key id) resolved once
 * from the request, the environment and the configuration's `api.url`, and the
 * `WebsitesApi` for it, whose notices and request log become events.
 */
import {
  CLIENT_DEFAULTS,
  type ClientOptions,
  type Connection,
  type ConnectionInput,
  connectionUrl,
  createClient,
  resolveConnection,
  type WebsitesApi,
} from '../api/index.js';
import { type EngineContext, LOG_LEVELS, type LogLevel } from './context.js';
import { secondsOption } from './numbers.js';
import type { ConnectionRequest } from './request.js';

/** What `openApi` gets: the HTTP client's options for one connection. */
export type ClientSettings = ClientOptions;

/**
 * The service URL and API key from the request, the environment and the
 * configuration's URL (a target's, else `api.url`), which must be pinned.
 */
export function connectionOf(
  request: ConnectionRequest,
  context: Pick<EngineContext, 'env' | 'cwd'>,
  configApiUrl?: string,
): Connection {
  return resolveConnection({ ...connectionInput(request, context, configApiUrl), ...keySource(request) });
}

/** Where a key would go, checked as `connectionOf` checks it, without reading the key. */
export function checkConnectionUrl(request: ConnectionRequest, context: Pick<EngineContext, 'env' | 'cwd'>): void {
  connectionUrl(connectionInput(request, context));
}

function connectionInput(
  request: ConnectionRequest,
  context: Pick<EngineContext, 'env' | 'cwd'>,
  configApiUrl?: string,
): ConnectionInput {
  const configUrl = request.configUrl ?? (configApiUrl === undefined ? undefined : { url: configApiUrl });
  return {
    env: context.env,
    cwd: context.cwd,
    insecureHttp: request.insecureHttp,
    ...(request.url !== undefined && { url: request.url }),
    ...(configUrl !== undefined && { configUrl }),
    ...(request.allowedOrigins !== undefined && { allowedOrigins: request.allowedOrigins }),
  };
}

function keySource(request: ConnectionRequest): Pick<ConnectionInput, 'apiKeyFile' | 'apiKeyEnv'> {
  return {
    ...(request.apiKeyFile !== undefined && { apiKeyFile: request.apiKeyFile }),
    ...(request.apiKeyEnv !== undefined && { apiKeyEnv: request.apiKeyEnv }),
  };
}

/**
 * A client for a connection resolved by `connectionOf` (once per run, so a
 * saved plan's key id comes from the same key the client uses). Its notices
 * (a wait of 5 s or more, an unreadable setting) are `warn` events, its
 * request log `debug` events (only asked for at that level). The caller closes it.
 */
export function openClient(
  request: ConnectionRequest,
  context: EngineContext,
  connection: Connection,
  concurrency?: number,
): WebsitesApi {
  const timeoutMs = requestTimeoutMs(request, context);
  const settings: ClientSettings = {
    url: connection.url,
    apiKey: connection.apiKey,
    insecureHttp: request.insecureHttp,
    ...(request.rateLimit !== undefined && { rateLimitPerMinute: request.rateLimit }),
    ...(timeoutMs !== undefined && { timeouts: requestTimeouts(timeoutMs) }),
    ...(concurrency !== undefined && { concurrency }),
    ...(logs(request.logLevel, 'debug') && {
      logger: (message: string) => context.events({ type: 'log', level: 'debug', message }),
    }),
    ...(logs(request.logLevel, 'warn') && {
      notice: (message: string) => context.events({ type: 'log', level: 'warn', message }),
    }),
  };
  return (context.openApi ?? createClient)(settings);
}

/** True when messages at `level` are wanted under `threshold`. */
export function logs(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}

export const TIMEOUT_RANGE = { min: 0.1, max: 3_600 };

/** The request's timeout, else SITESYNC_TIMEOUT (validated alike), in milliseconds; undefined: the client's default. */
function requestTimeoutMs(request: Pick<ConnectionRequest, 'timeout'>, context: Pick<EngineContext, 'env'>) {
  const fromEnv = context.env.SITESYNC_TIMEOUT;
  const seconds =
    request.timeout ??
    (fromEnv === undefined || fromEnv === '' ? undefined : secondsOption('SITESYNC_TIMEOUT', fromEnv, TIMEOUT_RANGE));
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}

/**
 * The deadline of one request, retries and backoff included; one attempt
 * waits for the answer at most the client's default (30 s), or less when the
 * deadline is shorter: a stalled attempt is then retried where that is safe.
 */
function requestTimeouts(timeoutMs: number) {
  const { headersMs, bodyMs } = CLIENT_DEFAULTS.timeouts;
  return { operationMs: timeoutMs, headersMs: Math.min(headersMs, timeoutMs), bodyMs: Math.min(bodyMs, timeoutMs) };
}
