/**
 * The gate in front of every API route: failed-authentication throttle per
 * client IP (429), Bearer key → account (looked up by peppered digest on every request, so revocation needs no restart), plan access
 * (403), then the per-key throttle (429), whose X-RateLimit-* headers go on
 * every authenticated answer. Whether a request is gated is decided on the
 * matched route (routes flagged `config.api`), or, when none matches, on the
 * canonical path (http/request-path.ts), never on the raw request line.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../store/contract.js';
import { hashKey } from '../store/credentials.js';
import type { Throttle, ThrottleResult } from '../store/throttle.js';
import { forbidden, HttpError, serviceUnavailable, tooManyAttempts, unauthenticated } from './http-error.js';
import type { ServerMode } from './mode.js';
import { isApiPath } from './request-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
  interface FastifyContextConfig {
    /** An API route: authenticated before anything else runs. */
    api?: boolean;
    /** Laravel's 405 answer: in quirks mode it comes before the throttle and authentication. */
    methodNotAllowed?: boolean;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

function wantsJson(request: FastifyRequest): boolean {
  return /[/+]json/.test(request.headers.accept ?? '');
}

function isGated(request: FastifyRequest, mode: ServerMode): boolean {
  if (mode === 'phpanalytics-v31' && request.routeOptions.config.methodNotAllowed === true) return false;
  if (request.routeOptions.config.api === true) return true;
  // No route matched (404): unknown API paths are not revealed to strangers either.
  return request.is404 && isApiPath(request.url);
}

export interface AuthOptions {
  store: AccountStore;
  mode: ServerMode;
  /** Per key, after authentication (quirks mode: per client IP, before authentication). */
  throttle?: Throttle;
  /** Per client IP, counting failed authentications. */
  failedAuthThrottle?: Throttle;
  /** Base of the quirks-mode login redirect (never the request's Host). */
  baseUrl: () => string;
}

/** The key from the Authorization header or, in quirks mode only, from `?api_token=`. */
function sentKey(request: FastifyRequest, quirks: boolean): string | undefined {
  const bearer = BEARER.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined || !quirks) return bearer;
  const token = (request.query as Record<string, unknown> | undefined)?.api_token;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** Laravel's login redirect, as a browser gets it: an HTML page. */
function loginRedirect(location: string): HttpError {
  const escaped = location.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const page = `<!DOCTYPE html>\n<html>\n    <head>\n        <meta charset="UTF-8" />\n        <meta http-equiv="refresh" content="0;url='${escaped}'" />\n\n        <title>Redirecting to ${escaped}</title>\n    </head>\n    <body>\n        Redirecting to <a href="${escaped}">${escaped}</a>.\n    </body>\n</html>`;
  return new HttpError(302, page, { location, 'content-type': 'text/html; charset=UTF-8' });
}

/**
 * Quirks mode: Laravel's `throttle:60,1` on the client IP, shared by every key and counted
 * before authentication, so 401 and 403 answers carry the headers and count too.
 */
async function throttleByIp(request: FastifyRequest, reply: FastifyReply, throttle: Throttle) {
  const result = await counted(request, () => throttle.hit(`ip:${request.ip}`));
  if (!result) return;
  reply.header('x-ratelimit-limit', result.limit).header('x-ratelimit-remaining', result.remaining);
  if (result.allowed) return;
  const refused = tooManyAttempts(result.retryAfter);
  const reset = String(Math.ceil(result.resetAt / 1000));
  throw new HttpError(429, refused.body, { ...refused.headers, 'x-ratelimit-reset': reset });
}

const READS = new Set(['GET', 'HEAD']);

/**
 * A throttle that cannot count (its shared store, PostgreSQL, does not answer):
 * a write fails closed with 503 and Retry-After, so nothing changes uncounted;
 * a read is served uncounted, without rate-limit headers (undefined), since it
 * changes nothing and its data comes from the same database anyway.
 */
async function counted(
  request: FastifyRequest,
  count: () => Promise<ThrottleResult>,
): Promise<ThrottleResult | undefined> {
  try {
    return await count();
  } catch {
    if (READS.has(request.method)) return undefined;
    throw serviceUnavailable();
  }
}

export function createAuthHook({ store, mode, throttle, failedAuthThrottle, baseUrl }: AuthOptions) {
  const quirks = mode === 'phpanalytics-v31';
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!isGated(request, mode)) return;
    if (quirks && throttle) await throttleByIp(request, reply, throttle);
    // A client over its failures is refused before its key is even looked at: a right guess
    // must look exactly like a wrong one until the window resets.
    const failures = failedAuthThrottle && (await counted(request, () => failedAuthThrottle.peek(request.ip)));
    if (failures && !failures.allowed) throw tooManyAttempts(failures.retryAfter);
    const key = sentKey(request, quirks);
    const keyHash = key === undefined ? undefined : hashKey(key);
    const found = keyHash === undefined ? undefined : await store.findKey(keyHash);
    if (!found) {
      if (failedAuthThrottle) await counted(request, () => failedAuthThrottle.hit(request.ip));
      // Laravel redirects browsers (no JSON in Accept) to its login page.
      if (quirks && !wantsJson(request)) throw loginRedirect(`${baseUrl()}/login`);
      throw unauthenticated();
    }
    // Known from here on, so the request log names the account of a 403 or 429 too.
    request.account = found.account;
    if (!found.account.apiAccess) throw forbidden();
    if (throttle && !quirks) {
      // Counted by key id: the shared table never holds a key's digest.
      const result = await counted(request, () => throttle.hit(`key:${found.keyId}`));
      if (!result) return;
      reply.header('x-ratelimit-limit', result.limit).header('x-ratelimit-remaining', result.remaining);
      if (!result.allowed) throw tooManyAttempts(result.retryAfter);
    }
  };
}

/** The authenticated account; a handler reached without one answers 401, never 500. */
export function authenticatedAccount(request: FastifyRequest): Account {
  if (!request.account) throw unauthenticated();
  return request.account;
}
