/**
 * Reports every answer of the app to the metrics (metrics/series.ts): its route
 * template (never the raw path), method, status, time, and for a 5xx the error
 * behind it, which the error handler hands over before it becomes an answer
 * (errors answered 4xx, a malformed body say, are the client's, not the store's).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerMetrics, UnavailableCause } from '../metrics/series.js';
import { HttpError } from './http-error.js';

export function instrumentApp(app: FastifyInstance, metrics: ServerMetrics) {
  const errors = new WeakMap<FastifyRequest, unknown>();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    const status = reply.statusCode;
    const error = errors.get(request);
    let cause: UnavailableCause | undefined;
    if (status >= 500 && error !== undefined && !(error instanceof HttpError)) cause = metrics.storeError(error);
    else if (
      error instanceof HttpError &&
      status === 503 &&
      (error.body as { message?: unknown }).message === 'Shutting down.'
    ) {
      cause = 'shutting_down';
    } else if (route === '/ready' && status === 503) cause = 'not_ready';
    metrics.answered({
      route,
      method: request.method,
      status,
      seconds: reply.elapsedTime / 1000,
      ...(cause && { cause }),
    });
  });
  return {
    /** Told by the error handler about every error, before it becomes an answer. */
    failed(request: FastifyRequest, error: unknown): void {
      errors.set(request, error);
    },
  };
}
