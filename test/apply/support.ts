/**
 * Shared setup for apply tests: the reference server in a given mode with a
 * client that has no client-side rate limit, and the server's database as the
 * judge (domains, duplicates) rather than anything the client says.
 */
import { type ClientOptions, createClient, type WebsitesApi } from '../../src/api/index.js';
import type { Plan } from '../../src/model/plan.js';
import { Secret } from '../../src/model/secret.js';
import type { DesiredWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/index.js';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { policy } from '../plan/builders.js';

export const MODES = ['normal', 'phpanalytics-v31'] as const;
export type Mode = (typeof MODES)[number];

export interface ApplyFixture {
  server: TestServer;
  api: WebsitesApi;
  /** Another client of the same account: "someone in the web UI". */
  other: WebsitesApi;
  close(): Promise<void>;
}

/** A client without client-side rate limit and with short retry delays (tests only). */
export function testClient(url: string, key: string, options: Partial<ClientOptions> = {}): WebsitesApi {
  return createClient({
    url,
    apiKey: new Secret(key),
    rateLimitPerMinute: 0,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...options,
  });
}

export async function startFixture(mode: Mode): Promise<ApplyFixture> {
  const server = await startTestServer(mode === 'normal' ? {} : { quirks: mode });
  const api = testClient(server.url, server.key);
  const other = testClient(server.url, server.key);
  return {
    server,
    api,
    other,
    close: async () => {
      await api.close();
      await other.close();
      await server.close();
    },
  };
}

/**
 * Every domain of the test account in the database, in domain order: parallel
 * creates may commit in any order on PostgreSQL (duplicates would show twice).
 */
export async function domainsInDb(server: TestServer): Promise<string[]> {
  const { json } = await server.server.store.listWebsites(
    { accountId: server.accountId, sortBy: 'domain', sort: 'asc', limit: 1_000_000, offset: 0 },
    [['domain', { column: 'domain' }]],
  );
  return (JSON.parse(json) as { domain: string }[]).map((row) => row.domain);
}

/** Puts sites straight into the database of an account (the test account by default), in order. */
export async function seedWebsites(
  server: TestServer,
  domains: readonly string[],
  accountId = server.accountId,
): Promise<void> {
  for (const domain of domains) await insertWebsite(server, domain, { accountId });
}

/** The configuration by domain, as applyPlan takes it. */
export const byDomain = (sites: readonly DesiredWebsite[]) => new Map(sites.map((site) => [site.domain, site]));

/** The plan of `config` against what `api` lists now (prune on unless told). */
export async function planAgainst(api: WebsitesApi, config: DesiredWebsite[], prune = true): Promise<Plan> {
  return plan(config, await api.listWebsites(), policy({ prune }));
}
