/**
 * Probes for operators and load balancers, outside authentication and the API
 * throttle: `/health` says the process answers (liveness), `/ready` that it
 * can reach its database, write to it (not full) and is not shutting down.
 * Normal mode serves them on the API port; quirks mode on the operator's
 * listener (`--metrics-addr`), since the deployed service has no such paths.
 */
import type { FastifyInstance } from 'fastify';
import { StoreFullError } from '../store/contract.js';

export interface HealthOptions {
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping: () => Promise<void> | void;
  closing: () => boolean;
}

export interface ProbeAnswer {
  status: number;
  body: Record<string, unknown>;
}

export const health = async (): Promise<ProbeAnswer> => ({ status: 200, body: { status: 'ok' } });

export async function readiness({ ping, closing }: HealthOptions): Promise<ProbeAnswer> {
  if (closing()) return { status: 503, body: { message: 'Shutting down.', status: 503 } };
  try {
    await ping();
  } catch (error) {
    const message = error instanceof StoreFullError ? 'Database full: writes fail.' : 'Database unavailable.';
    return { status: 503, body: { message, status: 503 } };
  }
  return { status: 200, body: { status: 'ready' } };
}

export function registerHealthRoutes(app: FastifyInstance, options: HealthOptions): void {
  for (const [path, probe] of [
    ['/health', health],
    ['/ready', () => readiness(options)],
  ] as const) {
    app.get(path, async (_request, reply) => {
      const { status, body } = await probe();
      return reply.code(status).send(body);
    });
  }
}
