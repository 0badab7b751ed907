/**
 * `GET /api/v1/account` as the deployed service (phpAnalytics v31) answers
 * it, served in quirks mode only (issue 24 item 9; the contract has no such
 * route, so normal mode answers 404): the authenticated account and its
 * plan, whose `features.websites` is the website limit (-1: none) and
 * `features.api` the API access. The deployed service also sends `email`,
 * `avatar_url`, `locale`, `timezone`, `created_at` and the plan's `id` and
 * `name`, which the reference server does not keep: not served (docs/server.md).
 */
import type { FastifyRequest } from 'fastify';
import { authenticatedAccount } from './auth.js';

export const ACCOUNT_PATH = '/api/v1/account';

export async function accountHandler(request: FastifyRequest) {
  const account = authenticatedAccount(request);
  const features = { websites: account.websiteLimit ?? -1, api: account.apiAccess ? 1 : 0 };
  return { data: { id: account.id, name: account.name, plan: { features } }, status: 200 };
}
