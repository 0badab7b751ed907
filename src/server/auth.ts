/**
 * The gate in front of every /api route: Bearer key → account (looked up by
 * peppered digest on every request, so revocation needs no restart), plan access (403), then the per-key throttle (429), whose
 * X-RateLimit-* headers go on every authenticated answer.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashKey } from './credentials.js';
import { forbidden, HttpError, unauthenticated } from './http-error.js';
import type { ServerMode } from './mode.js';
import type { Account, AccountStore } from './store.js';
import type { Throttle } from './throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

function wantsJson(request: FastifyRequest): boolean {
  return /[/+]json/.test(request.headers.accept ?? '');
}

export function createAuthHook(store: AccountStore, mode: ServerMode, throttle: Throttle | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!request.url.startsWith('/api/')) return;
    const key = BEARER.exec(request.headers.authorization ?? '')?.[1];
    const keyHash = key === undefined ? undefined : hashKey(key);
    const found = keyHash === undefined ? undefined : await store.findKey(keyHash);
    if (!found) {
      // Laravel redirects browsers (no JSON in Accept) to its login page.
      if (mode === 'phpanalytics-v31' && !wantsJson(request)) {
        throw new HttpError(302, {}, { location: `${request.protocol}://${request.host}/login` });
      }
      throw unauthenticated();
    }
    // Known from here on, so the request log names the account of a 403 or 429 too.
    request.account = found.account;
    if (!found.account.apiAccess) throw forbidden();
    if (throttle) {
      const result = throttle.hit(found.keyHash);
      reply.header('x-ratelimit-limit', result.limit).header('x-ratelimit-remaining', result.remaining);
      if (!result.allowed) {
        throw new HttpError(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(result.retryAfter) });
      }
    }
  };
}
