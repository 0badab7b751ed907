/**
 * `GET /api/v1/stats/{id}` as far as the deployed service's answers need no statistics (quirks
 * mode only; the contract has no such route): 422 naming each of `name`, `from` and `to` that is
 * missing (its SelectStatsRequest runs first), then 404 for a website the account does not own.
 * The statistics themselves are not served, the reference server records no visits: 501.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebsiteStore } from '../store/contract.js';
import { authenticatedAccount } from './auth.js';
import { HttpError, invalid, notFound } from './http-error.js';

export const STATS_PATH = '/api/v1/stats/:id';

const REQUIRED = ['name', 'from', 'to'] as const;

export function registerStatsRoute(app: FastifyInstance, store: WebsiteStore): void {
  app.get(STATS_PATH, async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const account = authenticatedAccount(request);
    const query = request.query as Record<string, unknown>;
    const missing = REQUIRED.filter((name) => typeof query[name] !== 'string' || query[name].trim() === '');
    if (missing.length > 0)
      throw invalid(Object.fromEntries(missing.map((name) => [name, [`The ${name} field is required.`]])));
    const id = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : undefined;
    if (id === undefined || !(await store.getWebsite(account.id, id))) throw notFound();
    throw new HttpError(501, { message: 'Statistics are not served by the reference server.', status: 501 });
  });
}
