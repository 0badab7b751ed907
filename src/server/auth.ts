/**
 * The gate in front of every API route: failed-authentication throttle per
 * client IP (429), Bearer key → account (looked up by peppered digest on every request, so revocation needs no restart), plan access
 * (403), then the per-key throttle (429), whose X-RateLimit-* headers go on
 * every authenticated answer. Whether a request is gated is decided on the
 * matched route (routes flagged `config.api`), or, when none matches, on the
 * canonical path (request-path.ts), never on the raw request line.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashKey } from './credentials.js';
import { forbidden, HttpError, tooManyAttempts, unauthenticated } from './http-error.js';
import type { ServerMode } from './mode.js';
import { isApiPath } from './request-path.js';
import type { Account, AccountStore } from './store.js';
import type { Throttle } from './throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
  interface FastifyContextConfig {
    /** An API route: authenticated before anything else runs. */
    api?: boolean;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

function wantsJson(request: FastifyRequest): boolean {
  return /[/+]json/.test(request.headers.accept ?? '');
}

function isGated(request: FastifyRequest): boolean {
  if (request.routeOptions.config.api === true) return true;
  // No route matched (404): unknown API paths are not revealed to strangers either.
  return request.is404 && isApiPath(request.url);
}

export interface AuthOptions {
  store: AccountStore;
  mode: ServerMode;
  /** Per key, after authentication. */
  throttle?: Throttle;
  /** Per client IP, counting failed authentications. */
  failedAuthThrottle?: Throttle;
  /** Base of the quirks-mode login redirect (never the request's Host). */
  baseUrl: () => string;
}

export function createAuthHook({ store, mode, throttle, failedAuthThrottle, baseUrl }: AuthOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!isGated(request)) return;
    // A client over its failures is refused before its key is even looked at: a right guess
    // must look exactly like a wrong one until the window resets.
    const failures = await failedAuthThrottle?.peek(request.ip);
    if (failures && !failures.allowed) throw tooManyAttempts(failures.retryAfter);
    const key = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const keyHash = key === undefined ? undefined : hashKey(key);
    const found = keyHash === undefined ? undefined : await store.findKey(keyHash);
    if (!found) {
      await failedAuthThrottle?.hit(request.ip);
      // Laravel redirects browsers (no JSON in Accept) to its login page.
      if (mode === 'phpanalytics-v31' && !wantsJson(request)) {
        throw new HttpError(302, {}, { location: `${baseUrl()}/login` });
      }
      throw unauthenticated();
    }
    // Known from here on, so the request log names the account of a 403 or 429 too.
    request.account = found.account;
    if (!found.account.apiAccess) throw forbidden();
    if (throttle) {
      const result = await throttle.hit(found.keyHash);
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
