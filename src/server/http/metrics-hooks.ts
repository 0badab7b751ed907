/**
 * Reports every answer of the app to the metrics (metrics/series.ts): its route
 * template (never the raw path), method, status, time, and for a 503 its cause,
 * found by the error handler before the error became an answer.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerMetrics, UnavailableCause } from '../metrics/series.js';
import { HttpError } from './http-error.js';

export function instrumentApp(app: FastifyInstance, metrics: ServerMetrics) {
  const causes = new WeakMap<FastifyRequest, UnavailableCause>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const cause = causes.get(request) ?? (route === '/ready' ? 'not_ready' : undefined);
    metrics.answered({
      route,
      method: request.method,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
      ...(cause && { cause }),
    });
  });
  return {
    /** Told by the error handler about every error, before it becomes an answer. */
    failed(request: FastifyRequest, error: unknown): void {
      if (!(error instanceof HttpError)) causes.set(request, metrics.storeError(error));
      else if (error.statusCode === 503 && (error.body as { message?: unknown }).message === 'Shutting down.') {
        causes.set(request, 'shutting_down');
      }
    },
  };
}
