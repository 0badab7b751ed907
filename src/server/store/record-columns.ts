/**
 * What both storage backends share: the column of every record field (the
 * only names that reach SQL text, never names from requests), the SELECT list,
 * the updatable fields, and the service's timestamp format.
 */
import type { WebsiteRecord } from './contract.js';

/** Column of every record field; the only names that reach SQL text. */
export const COLUMN: Readonly<Record<keyof WebsiteRecord, string>> = {
  id: 'id',
  accountId: 'account_id',
  domain: 'domain',
  privacy: 'privacy',
  passwordHash: 'password_hash',
  email: 'email',
  excludeBots: 'exclude_bots',
  excludeParams: 'exclude_params',
  excludeIps: 'exclude_ips',
  favoritedAt: 'favorited_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** SELECT list giving WebsiteRecord objects. */
export const COLUMNS = Object.entries(COLUMN)
  .map(([field, column]) => (field === column ? column : `${column} AS ${field}`))
  .join(', ');

/** Fields an update may change. */
export const UPDATABLE = new Set<string>([
  'privacy',
  'passwordHash',
  'email',
  'excludeBots',
  'excludeParams',
  'excludeIps',
  'favoritedAt',
]);

/** A stored timestamp as the service shows it: ISO 8601 UTC with microseconds. */
export function serviceTimestamp(now: Date): string {
  return `${now.toISOString().slice(0, 19)}.000000Z`;
}
