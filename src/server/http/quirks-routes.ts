/**
 * Quirks mode (phpanalytics-v31): the deployed routes/api.php and Laravel's router. Each path is
 * one fastify route for every method, dispatched on the method Symfony reads (a POST may name
 * another: `_method`, X-HTTP-Method-Override): the route's handler for it, else the router's own
 * answers, OPTIONS 200 with `Allow` or 405 naming the method and the path as sent. Under
 * `/api/v1/`, a path no resource matches is the group's fallback (authenticated and throttled,
 * then 404 "Resource not found."); any other unknown path is the router's 404, in Laravel's words
 * or as the app's HTML page. The gate (quirks-gate.ts) runs on a route that serves the method.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerStore } from '../store/contract.js';
import { ACCOUNT_PATH, accountHandler } from './account-route.js';
import { notFound } from './http-error.js';
import { errorPage, HTML_TYPE, optionsAnswer } from './quirks-answers.js';
import { effectiveMethod, expectsJson, type LinkBase, laravelPath } from './quirks-request.js';
import { quirksDialect } from './quirks-website.js';
import { STATS_PATH, statsHandler } from './stats-route.js';
import { COLLECTION, ITEM, type RouteHandler, websiteHandlers } from './website-routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Quirks mode: the methods a route serves (the others are the router's OPTIONS and 405 answers). */
    methods?: readonly string[];
    /** Quirks mode: the route checks the plan's API access (`api.guard`, 403); the fallback does not. */
    planGuard?: boolean;
  }
}

/** Laravel's Router::$verbs, in its order (the order of `Allow` and of "Supported methods"). */
const VERBS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

interface QuirksRoute {
  url: string;
  handlers: Partial<Record<(typeof VERBS)[number], RouteHandler>>;
  planGuard: boolean;
}

/** The group's fallback route (GET and HEAD, as Route::fallback registers it). */
const FALLBACK = '/api/v1/*';

const fallback: RouteHandler = async () => {
  throw notFound();
};

function routeTable(store: ServerStore, base: LinkBase): QuirksRoute[] {
  const websites = websiteHandlers(store, quirksDialect(base, store));
  const stats = statsHandler(store, base);
  const read = (handler: RouteHandler) => ({ GET: handler, HEAD: handler });
  return [
    { url: COLLECTION, handlers: { ...read(websites.list), POST: websites.create }, planGuard: true },
    {
      url: ITEM,
      handlers: { ...read(websites.show), PUT: websites.update, PATCH: websites.update, DELETE: websites.destroy },
      planGuard: true,
    },
    { url: ACCOUNT_PATH, handlers: read(accountHandler), planGuard: true },
    { url: STATS_PATH, handlers: read(stats), planGuard: true },
    { url: FALLBACK, handlers: read(fallback), planGuard: false },
  ];
}

/** The router's answer to a method the route does not serve. */
function methodNotAllowed(request: FastifyRequest, reply: FastifyReply, method: string, supported: string[]) {
  if (method === 'OPTIONS') return optionsAnswer(reply, supported);
  return reply
    .code(405)
    .header('allow', supported.join(', '))
    .send({
      message: `The ${method} method is not supported for route ${laravelPath(request)}. Supported methods: ${supported.join(', ')}.`,
    });
}

/** The router's 404 for a path no route matches: Laravel's words, or the app's page for a browser. */
function routeNotFound(request: FastifyRequest, reply: FastifyReply) {
  if (!expectsJson(request)) return reply.code(404).type(HTML_TYPE).send(errorPage(404));
  return reply.code(404).send({ message: `The route ${laravelPath(request)} could not be found.` });
}

export function registerQuirksRoutes(app: FastifyInstance, store: ServerStore, base: LinkBase): void {
  for (const { url, handlers, planGuard } of routeTable(store, base)) {
    const supported = VERBS.filter((verb) => handlers[verb] !== undefined);
    app.route({
      // Every method node accepts (app.ts makes the others routable): what the route lacks is a 405.
      method: app.supportedMethods,
      url,
      config: { methods: supported, planGuard },
      handler: async (request, reply) => {
        const method = effectiveMethod(request);
        const handler = handlers[method as (typeof VERBS)[number]];
        return handler ? handler(request, reply) : methodNotAllowed(request, reply, method, supported);
      },
    });
  }
  app.setNotFoundHandler(routeNotFound);
}
