/**
 * Probes for operators and load balancers, outside authentication and the API
 * throttle: `/health` says the process answers (liveness), `/ready` that it
 * can reach its database (readiness) and is not shutting down.
 */
import type { FastifyInstance } from 'fastify';

export interface HealthOptions {
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping: () => Promise<void> | void;
  closing: () => boolean;
}

export function registerHealthRoutes(app: FastifyInstance, { ping, closing }: HealthOptions): void {
  app.get('/health', async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    if (closing()) return reply.code(503).send({ message: 'Shutting down.', status: 503 });
    try {
      await ping();
    } catch {
      return reply.code(503).send({ message: 'Database unavailable.', status: 503 });
    }
    return reply.send({ status: 'ready' });
  });
}
