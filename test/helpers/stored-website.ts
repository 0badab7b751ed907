/**
 * Websites written straight into a reference server's store (no HTTP, no
 * throttle): for tests that need sites made out of band, and for benchmarks
 * that seed thousands. No vitest import, so benchmarks can use it under tsx.
 */

import type { RunningServer, WebsiteValues } from '../../src/server/index.js';
import { hashKey } from '../../src/server/store/credentials.js';

/** A website's stored values with the contract's defaults (privacy 1, email 0, exclude_bots 1). */
export const STORED_DEFAULTS: Readonly<WebsiteValues> = {
  privacy: 1,
  passwordHash: null,
  email: 0,
  excludeBots: 1,
  excludeParams: null,
  excludeIps: null,
  favoritedAt: null,
};

/** Inserts one website per domain for the account that `key` belongs to. */
export async function insertWebsites(
  server: RunningServer,
  key: string,
  domains: Iterable<string>,
  values: Partial<WebsiteValues> = {},
): Promise<void> {
  const account = (await server.store.findKey(hashKey(key)))!.account;
  const stored = { ...STORED_DEFAULTS, ...values };
  for (const domain of domains) await server.store.insertWebsite(account.id, domain, stored, new Date());
}
