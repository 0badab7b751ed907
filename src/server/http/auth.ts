/**
 * The gate in front of every API route: failed-authentication throttle per
 * client IP, per /64 for IPv6 (429), Bearer key → account (looked up by peppered digest on every request, so revocation needs no restart), plan access
 * (403), then the per-key throttle (429), whose X-RateLimit-* headers go on
 * every authenticated answer. Whether a request is gated is decided on the
 * matched route (routes flagged `config.api`), or, when none matches, on the
 * canonical path (http/request-path.ts), never on the raw request line.
 * Quirks mode has a gate of its own, in the deployed service's order (quirks-gate.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../store/contract.js';
import { hashKey } from '../store/credentials.js';
import type { Throttle, ThrottleResult } from '../store/throttle.js';
import { failureScope } from './client-address.js';
import { forbidden, serviceUnavailable, tooManyAttempts, unauthenticated } from './http-error.js';
import { isApiPath } from './request-path.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
  interface FastifyContextConfig {
    /** An API route: authenticated before anything else runs. */
    api?: boolean;
    /** Under /api but answered without a key (the OpenAPI document). */
    public?: boolean;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

function isGated(request: FastifyRequest): boolean {
  if (request.routeOptions.config.api === true) return true;
  // No route matched (404): unknown API paths are not revealed to strangers either.
  return request.is404 && isApiPath(request.url);
}

export interface AuthOptions {
  store: AccountStore;
  /** Per key, after authentication. */
  throttle?: Throttle;
  /** Per client IP, counting failed authentications. */
  failedAuthThrottle?: Throttle;
}

const READS = new Set(['GET', 'HEAD']);

/**
 * A throttle that cannot count (its shared store, PostgreSQL, does not answer):
 * a write fails closed with 503 and Retry-After, so nothing changes uncounted;
 * a read is served uncounted, without rate-limit headers (undefined), since it
 * changes nothing and its data comes from the same database anyway.
 */
export async function counted(
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

export function createAuthHook({ store, throttle, failedAuthThrottle }: AuthOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!isGated(request)) return;
    // A client over its failures is refused before its key is even looked at: a right guess
    // must look exactly like a wrong one until the window resets.
    const scope = failureScope(request.ip);
    const failures = failedAuthThrottle && (await counted(request, () => failedAuthThrottle.peek(scope)));
    if (failures && !failures.allowed) throw tooManyAttempts(failures.retryAfter);
    const key = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const keyHash = key === undefined ? undefined : hashKey(key);
    const found = keyHash === undefined ? undefined : await store.findKey(keyHash);
    if (!found) {
      // Counted only while under the limit, in one atomic step: guesses sent together cannot
      // all pass the peek above and be answered 401; the ones past the limit get 429.
      const failure = failedAuthThrottle && (await counted(request, () => failedAuthThrottle.take(scope)));
      if (failure && !failure.allowed) throw tooManyAttempts(failure.retryAfter);
      throw unauthenticated();
    }
    // Known from here on, so the request log names the account of a 403 or 429 too.
    request.account = found.account;
    if (!found.account.apiAccess) throw forbidden();
    if (throttle) {
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
