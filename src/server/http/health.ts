/**
 * Probes for operators and load balancers, outside authentication and the API
 * throttle: `/health` says the process answers (liveness), `/ready` that it
 * can reach its database, write to it (not full) and is not shutting down.
 */
import type { FastifyInstance } from 'fastify';
import { StoreFullError } from '../store/contract.js';

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
    } catch (error) {
      const message = error instanceof StoreFullError ? 'Database full: writes fail.' : 'Database unavailable.';
      return reply.code(503).send({ message, status: 503 });
    }
    return reply.send({ status: 'ready' });
  });
}
