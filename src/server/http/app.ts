/**
 * The fastify application: body parsers, the auth gate, the website routes,
 * the probes, and the service's answers for everything else (400, 404, 405,
 * 408, 413, 415, 431, 500, 503), all in the `{message, status}` shape. Fastify's
 * own schema validation is not used: messages must match the real service.
 */
import { METHODS, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { ServerMetrics } from '../metrics/series.js';
import { type ServerStore, StoreBusyError, StoreFullError } from '../store/contract.js';
import type { Throttle } from '../store/throttle.js';
import { createAuthHook } from './auth.js';
import { isTrustedProxy } from './client-address.js';
import { registerBodyParsers } from './form-body.js';
import { registerHealthRoutes } from './health.js';
import { HttpError, notFound, serverError, serviceUnavailable, storageFull } from './http-error.js';
import { type LineLevel, levelOfStatus } from './log-level.js';
import { instrumentApp } from './metrics-hooks.js';
import type { ServerMode } from './mode.js';
import { OPENAPI_PATH, openApiDocument } from './openapi.js';
import { registerQuirksAnswers } from './quirks-answers.js';
import { phpQuery, QUIRKS_BODY_LIMIT, registerQuirksBodyParsers } from './quirks-body.js';
import { registerQuirksCors } from './quirks-cors.js';
import { registerQuirksGate } from './quirks-gate.js';
import { type LinkBase, laravelRoutingUrl } from './quirks-request.js';
import { registerQuirksRoutes } from './quirks-routes.js';
import { canonicalUrl, isApiPath } from './request-path.js';
import { COLLECTION, contractDialect, ITEM, registerWebsiteRoutes } from './website-routes.js';

export interface AppOptions {
  store: ServerStore;
  mode: ServerMode;
  /** Where links point: the public URL, else the listening address (known once listening). */
  baseUrl: () => string;
  /** The operator's public URL, when one was given (quirks mode builds links from the request otherwise). */
  publicUrl?: string;
  throttle?: Throttle;
  failedAuthThrottle?: Throttle;
  /** One JSON line per request (and per unexpected error), with its level; undefined = no log. */
  log?: (line: string, level: LineLevel) => void;
  bodyLimit?: number;
  /**
   * Client IP and scheme from X-Forwarded-*: sent by the proxies at these addresses or CIDR
   * ranges, or (a number) by that many proxies in front, whoever connects (default neither).
   */
  trustProxy?: readonly string[] | number;
  /** A request (headers and body) not received in full is cut off with 408 within this time (default 30 s). */
  requestTimeoutMs?: number;
  /** Prometheus series to keep (metrics/series.ts); undefined = none. */
  metrics?: ServerMetrics;
}

/** The methods any route serves; every other one node's parser accepts is answered 405 (or 404), never read. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Every method node accepts becomes routable (so a route answers it 405) and bodiless for
 * fastify: its body is never parsed, and fastify's own check that QUERY carries a Content-Type
 * (an error we would answer 500) never runs. CONNECT never reaches a request handler.
 */
function routeEveryMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (!SERVED_METHODS.has(method) && method !== 'CONNECT') {
      app.addHttpMethod(method, { hasBody: false, overrideExisting: true });
    }
  }
}

/** Laravel's 405 for the methods a path does not support, with an `Allow` header. */
function registerMethodNotAllowed(app: FastifyInstance, url: string, supported: readonly string[]) {
  const others = app.supportedMethods.filter((method) => !supported.includes(method));
  const route = url.replace(/^\//, '').replace(':id', '{id}');
  app.route({
    method: others,
    url,
    handler: async (request, reply) =>
      reply
        .code(405)
        .header('allow', supported.join(', '))
        .send({
          message: `The ${request.method} method is not supported for route ${route}. Supported methods: ${supported.join(', ')}.`,
        }),
  });
}

const problem = (status: number, message: string) => new HttpError(status, { message, status });

function toHttpError(error: FastifyError, store: ServerStore): HttpError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'Payload Too Large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'Unsupported Media Type.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_BAD_URL':
      return problem(400, 'Bad Request.');
  }
  if (error instanceof StoreFullError) return storageFull();
  if (error instanceof StoreBusyError || store.unavailable?.(error)) {
    // Locked by another process (a backup, a shell, another server), or PostgreSQL cannot answer
    // for now (statement timeout, a dropped connection): a client may simply retry.
    return serviceUnavailable();
  }
  if (error instanceof SyntaxError) return problem(400, 'Malformed JSON body.');
  return undefined;
}

/**
 * Errors node's HTTP parser meets before fastify sees a request (malformed
 * request, header too large, request timeout), written straight to the socket.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large.']
        : [400, 'Bad Request.'];
  const body = JSON.stringify({ message, status });
  // A response already under way cannot be replaced by another one.
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !response?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const trustedPeer = (trusts: (address: string) => boolean) => (address: string, hop: number) =>
  hop === 0 && trusts(address);

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  // Node finds expired requests on a periodic check: one tenth of the budget is the check's
  // period, the rest node's own timeout, so a stalled request is cut off within the budget.
  const budget = options.requestTimeoutMs ?? 30_000;
  const checkEvery = Math.max(10, Math.floor(budget / 10));
  const requestTimeout = Math.max(1, budget - checkEvery);
  const trusted = options.trustProxy ?? 0;
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? (options.mode === 'normal' ? 64 * 1024 : QUIRKS_BODY_LIMIT),
    rewriteUrl: (request) => (options.mode === 'normal' ? canonicalUrl : laravelRoutingUrl)(request.url ?? '/'),
    // Quirks mode reads the query as PHP does (`name[]=` arrays, the last of a repeated name).
    ...(options.mode !== 'normal' && { routerOptions: { querystringParser: phpQuery } }),
    // Hop 0 is the socket's peer: with one trusted hop, the client is the last X-Forwarded-For
    // entry, the one the proxy appended. Named proxies: that hop is trusted only when the peer is
    // one of them. Not "every address in the list" (proxy-addr): a client on the proxy's own
    // machine is in the list too, and the entry it forged before its own would be believed.
    trustProxy:
      typeof trusted === 'number'
        ? trusted > 0 && ((_address: string, hop: number) => hop < trusted)
        : trustedPeer(isTrustedProxy(trusted)),
    requestTimeout,
    http: { requestTimeout, connectionsCheckingInterval: checkEvery },
    clientErrorHandler: answerClientError,
    // A URL that cannot be decoded (`%zz`): fastify's own answer would echo the path.
    frameworkErrors: (_error, _request, reply) => {
      (reply as FastifyReply).code(400).send({ message: 'Bad Request.', status: 400 });
    },
    // The 503 while closing is ours (below), in the service's error shape.
    return503OnClosing: false,
  });
  routeEveryMethod(app);
  const observed = options.metrics && instrumentApp(app, options.metrics);
  if (options.mode === 'normal') registerBodyParsers(app);
  else registerQuirksBodyParsers(app);
  app.decorateRequest('account', null);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new HttpError(503, { message: 'Shutting down.', status: 503 }, { 'retry-after': '5' });
  });
  // Deny by default: every route under /api is authenticated, whatever registers it.
  app.addHook('onRoute', (route) => {
    if (isApiPath(route.url) && route.config?.public !== true) route.config = { ...route.config, api: true };
  });
  // Quirks mode builds links from the request (Laravel's root URL) unless the operator pinned one.
  const links = { ...(options.publicUrl !== undefined && { pinned: options.publicUrl }), listening: options.baseUrl };
  if (options.mode === 'normal') app.addHook('onRequest', createAuthHook({ ...options }));
  else registerQuirksGate(app, { ...options, links });

  const log = options.log;
  if (log) {
    app.addHook('onResponse', async (request, reply) => {
      const path = request.url.split('?', 1)[0];
      const line = {
        method: request.method,
        path,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      };
      log(
        JSON.stringify({
          time: new Date().toISOString(),
          ...line,
          account: request.account?.id ?? null,
          ip: request.ip,
          scheme: request.protocol,
        }),
        levelOfStatus(reply.statusCode),
      );
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    observed?.failed(request, error);
    const known = error instanceof HttpError ? error : toHttpError(error, options.store);
    if (known) return reply.code(known.statusCode).headers(known.headers).send(known.body);
    // Details stay in the server's log, never in the answer.
    log?.(JSON.stringify({ time: new Date().toISOString(), error: error.message, method: request.method }), 'error');
    const failure = serverError();
    return reply.code(failure.statusCode).send(failure.body);
  });
  if (options.mode === 'normal') registerContractRoutes(app, options, () => closing);
  else registerQuirksMode(app, options.store, links);
  return app;
}

/** The contract's API: the website routes and their 405s, the probes and the OpenAPI document on the API port. */
function registerContractRoutes(app: FastifyInstance, options: AppOptions, closing: () => boolean): void {
  app.setNotFoundHandler(async () => {
    throw notFound();
  });
  registerHealthRoutes(app, { ping: () => options.store.ping(), closing });
  // The API's description is no secret: tools fetch it without a key.
  const document = JSON.stringify(openApiDocument(options.mode));
  app.get(OPENAPI_PATH, { config: { public: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(document),
  );
  registerWebsiteRoutes(app, options.store, contractDialect(options.baseUrl));
  const routes: [string, string[]][] = [
    ['/health', ['GET', 'HEAD']],
    ['/ready', ['GET', 'HEAD']],
    [OPENAPI_PATH, ['GET', 'HEAD']],
    [COLLECTION, ['GET', 'HEAD', 'POST']],
    [ITEM, ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']],
  ];
  for (const [url, supported] of routes) registerMethodNotAllowed(app, url, supported);
}

/**
 * The deployed service's API and nothing else on the API port (probes and the OpenAPI document
 * are served on the operator's address, `--metrics-addr`: index.ts), in its dress.
 */
function registerQuirksMode(app: FastifyInstance, store: ServerStore, links: LinkBase): void {
  registerQuirksCors(app);
  registerQuirksAnswers(app);
  registerQuirksRoutes(app, store, links);
}
