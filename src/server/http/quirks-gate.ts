/**
 * Quirks mode (phpanalytics-v31): the deployed service's gate, in its order. PHP reads the body
 * first and Laravel's router answers a wrong method (405), OPTIONS (200) and an unknown route (404)
 * before any route middleware (quirks-routes.ts); every API route then meets the `api` group's
 * `throttle:60,1`, per client IP, then `auth:api`, whose TokenGuard takes the first non-empty of
 * `?api_token=`, `api_token` in the body, a `Bearer ` header (that spelling only) and the Basic auth
 * password, then (on the resource routes, not the group's fallback) `api.guard`'s plan check
 * (403). There is no failed-authentication throttle: a wrong key spends the same per-IP budget
 * as a right one. A 401 has no WWW-Authenticate header.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountStore } from '../store/contract.js';
import { hashKey } from '../store/credentials.js';
import type { Throttle } from '../store/throttle.js';
import { counted } from './auth.js';
import { forbidden, HttpError, tooManyAttempts } from './http-error.js';
import { effectiveMethod, expectsJson, type LinkBase, laravelRoot } from './quirks-request.js';

export interface QuirksGateOptions {
  store: AccountStore;
  /** Per client IP, before authentication. */
  throttle?: Throttle;
  /** Base of the login redirect: `route('login')` is built from the request's root, as page links are. */
  links: LinkBase;
}

/**
 * Every API route, deny by default, unless the route says which methods it serves and the
 * request's (after any override) is none of them: then the router answers (405, OPTIONS).
 */
function isGated(request: FastifyRequest): boolean {
  const { api, methods } = request.routeOptions.config;
  return api === true && (methods === undefined || methods.includes(effectiveMethod(request)));
}

/** Symfony's `bearerToken()`: after the last "Bearer " (case-sensitive), up to a comma. */
function bearerToken(header: string): string | undefined {
  const at = header.lastIndexOf('Bearer ');
  return at === -1 ? undefined : header.slice(at + 7).split(',', 1)[0];
}

/** The password of `Authorization: Basic base64(user:password)`. */
function basicPassword(header: string): string | undefined {
  const encoded = /^basic\s+(\S+)/i.exec(header)?.[1];
  const decoded = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/** TokenGuard's order; PHP's `empty()` skips '' and '0'; TrimStrings trims the inputs. */
function sentToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization ?? '';
  const input = (source: unknown) => {
    const value = (source as Record<string, unknown> | undefined)?.api_token;
    return typeof value === 'string' ? value.trim() : undefined;
  };
  const candidates = [input(request.query), input(request.body), bearerToken(header), basicPassword(header)];
  return candidates.find((token) => token !== undefined && token !== '' && token !== '0');
}

/** Laravel's login redirect, as a browser gets it: Symfony's RedirectResponse page. */
function loginRedirect(location: string): HttpError {
  const escaped = location.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const page = `<!DOCTYPE html>\n<html>\n    <head>\n        <meta charset="UTF-8" />\n        <meta http-equiv="refresh" content="0;url='${escaped}'" />\n\n        <title>Redirecting to ${escaped}</title>\n    </head>\n    <body>\n        Redirecting to <a href="${escaped}">${escaped}</a>.\n    </body>\n</html>`;
  return new HttpError(302, page, { location, 'content-type': 'text/html; charset=utf-8' });
}

/** `throttle:60,1` on the client IP, shared by every key, so 401, 403 and 302 answers count too. */
async function throttleByIp(request: FastifyRequest, reply: FastifyReply, throttle: Throttle): Promise<void> {
  const result = await counted(request, () => throttle.hit(`ip:${request.ip}`));
  if (!result) return;
  reply.header('x-ratelimit-limit', result.limit).header('x-ratelimit-remaining', result.remaining);
  if (result.allowed) return;
  const refused = tooManyAttempts(result.retryAfter);
  const reset = String(Math.ceil(result.resetAt / 1000));
  throw new HttpError(429, refused.body, { ...refused.headers, 'x-ratelimit-reset': reset });
}

export function registerQuirksGate(app: FastifyInstance, { store, throttle, links }: QuirksGateOptions): void {
  // After the body is read (PHP reads it before anything runs; the key may be in it).
  app.addHook('preValidation', async (request, reply) => {
    if (!isGated(request)) return;
    if (throttle) await throttleByIp(request, reply, throttle);
    const token = sentToken(request);
    const found = token === undefined ? undefined : await store.findKey(hashKey(token));
    if (!found) {
      // Laravel redirects browsers (no JSON expected) to its login page.
      if (!expectsJson(request)) throw loginRedirect(`${laravelRoot(request, links)}/login`);
      throw new HttpError(401, { message: 'Unauthenticated.' });
    }
    // Known from here on, so the request log names the account of a 403 too.
    request.account = found.account;
    if (request.routeOptions.config.planGuard === true && !found.account.apiAccess) throw forbidden();
  });
}
