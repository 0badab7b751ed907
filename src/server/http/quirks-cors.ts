/**
 * Quirks mode (phpanalytics-v31): Laravel's global HandleCors middleware with the deployed
 * `config/cors.php` (paths `api/*`, every origin, method and header allowed, `supports_credentials`
 * true, max age 0), as fruitcake/php-cors applies it. A preflight (OPTIONS with
 * Access-Control-Request-Method) is answered 204 before the router, on any path under `api/`;
 * every other answer there gets `Vary: Origin`, and when the request has an Origin, that origin
 * with credentials allowed. Credentials and any origin together: a browser page on any site may
 * call the API with the user's cookies, which is what the deployed service allows.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { laravelPath } from './quirks-request.js';

/** `$request->is('api/*')`: on `path()` with its escapes decoded (rawurldecode). */
function isCorsPath(request: FastifyRequest): boolean {
  const decoded = laravelPath(request).replace(/%([\da-f]{2})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  return decoded.startsWith('api/');
}

const isPreflight = (request: FastifyRequest) =>
  request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;

/** php-cors' varyHeader: appends a name to `Vary` once. */
function vary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) reply.header('vary', name);
  else if (!String(current).split(', ').includes(name)) reply.header('vary', `${current}, ${name}`);
}

/** `configureAllowedOrigin` for any origin with credentials: the request's Origin, and always `Vary: Origin`. */
function allowOrigin(request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) reply.header('access-control-allow-origin', origin);
  vary(reply, 'Origin');
  if (origin === undefined) return false;
  reply.header('access-control-allow-credentials', 'true');
  return true;
}

function answerPreflight(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (allowOrigin(request, reply)) {
    reply.header(
      'access-control-allow-methods',
      String(request.headers['access-control-request-method']).toUpperCase(),
    );
    vary(reply, 'Access-Control-Request-Method');
    reply.header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '');
    vary(reply, 'Access-Control-Request-Headers');
    reply.header('access-control-max-age', '0');
  }
  vary(reply, 'Access-Control-Request-Method');
  return reply.code(204).send();
}

export function registerQuirksCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (isPreflight(request) && isCorsPath(request)) return answerPreflight(request, reply);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (isPreflight(request) || !isCorsPath(request)) return payload;
    if (request.method === 'OPTIONS') vary(reply, 'Access-Control-Request-Method');
    allowOrigin(request, reply);
    return payload;
  });
}
