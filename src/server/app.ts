/**
 * The fastify application: body parsers, the auth gate, the website routes,
 * and the service's answers for everything else (404, 405, 413, 500). Fastify's
 * own schema validation is not used: messages must match the real service.
 */
import formbody from '@fastify/formbody';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { createAuthHook } from './auth.js';
import { HttpError, notFound, serverError } from './http-error.js';
import { type LineLevel, levelOfStatus } from './log-level.js';
import type { ServerMode } from './mode.js';
import { type ServerStore, StoreBusyError } from './store.js';
import type { Throttle } from './throttle.js';
import { COLLECTION, ITEM, registerWebsiteRoutes } from './website-routes.js';

export interface AppOptions {
  store: ServerStore;
  mode: ServerMode;
  throttle?: Throttle;
  /** One JSON line per request (and per unexpected error), with its level; undefined = no log. */
  log?: (line: string, level: LineLevel) => void;
  bodyLimit?: number;
}

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Laravel's 405 for the methods a path does not support. */
function registerMethodNotAllowed(app: FastifyInstance, url: string, supported: readonly string[]): void {
  const others = ALL_METHODS.filter((method) => !supported.includes(method));
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

function toHttpError(error: FastifyError): HttpError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, { message: 'Payload Too Large.', status: 413 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, { message: 'Unsupported Media Type.', status: 415 });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError(400, { message: 'Bad Request.', status: 400 });
  }
  if (error instanceof StoreBusyError) {
    // Locked by another process (a backup, a shell, another server): a client may simply retry.
    return new HttpError(503, { message: 'Service Unavailable.', status: 503 }, { 'retry-after': '1' });
  }
  if (error instanceof SyntaxError) return new HttpError(400, { message: 'Malformed JSON body.', status: 400 });
  return undefined;
}

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimit ?? 64 * 1024 });
  // Only forms and JSON are bodies here; fastify's built-in text/plain parser would hand the
  // routes a string, answered 422 "required", where every other content type gets 415.
  app.removeContentTypeParser('text/plain');
  await app.register(formbody);
  // An empty JSON body (e.g. on DELETE) is an empty form, not an error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.decorateRequest('account', null);
  app.addHook('onRequest', createAuthHook(options.store, options.mode, options.throttle));

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
        JSON.stringify({ time: new Date().toISOString(), ...line, account: request.account?.id ?? null }),
        levelOfStatus(reply.statusCode),
      );
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof HttpError ? error : toHttpError(error);
    if (known) return reply.code(known.statusCode).headers(known.headers).send(known.body);
    // Details stay in the server's log, never in the answer.
    log?.(JSON.stringify({ time: new Date().toISOString(), error: error.message, method: request.method }), 'error');
    const failure = serverError();
    return reply.code(failure.statusCode).send(failure.body);
  });
  app.setNotFoundHandler(async () => {
    throw notFound();
  });

  registerWebsiteRoutes(app, options);
  registerMethodNotAllowed(app, COLLECTION, ['GET', 'HEAD', 'POST']);
  registerMethodNotAllowed(app, ITEM, ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']);
  return app;
}
