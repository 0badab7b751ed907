/**
 * One identity rule everywhere: with two live spellings of one domain, the
 * planner, --explain and the read-back all pick the same site (the lowest id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebsitesApi } from '../../src/api/index.js';
import { readTargets } from '../../src/apply/read-back.js';
import { explain } from '../../src/plan/explain.js';
import { plan } from '../../src/plan/index.js';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { desired, policy } from '../plan/builders.js';
import { testClient } from './support.js';

describe('a domain the service holds twice (Example.com, example.com.)', () => {
  let server: TestServer;
  let api: WebsitesApi;
  beforeAll(async () => {
    server = await startTestServer();
    expect(await insertWebsite(server, 'Example.com')).toBe(1);
    expect(await insertWebsite(server, 'example.com.')).toBe(2);
    await insertWebsite(server, 'other.com');
    api = testClient(server.url, server.key);
  });
  afterAll(async () => {
    await api.close();
    await server.close();
  });

  it('planner, --explain and read-back (listing and per-site) all take id 1', async () => {
    const live = await api.listWebsites();
    const wanted = [desired('example.com', { privacy: 'public' })];
    const [change] = plan(wanted, live, policy()).changes;
    expect(change).toMatchObject({ action: 'update', domain: 'example.com', id: 1 });
    expect(explain(wanted, live, policy()).map((site) => site.id)).toEqual([1]);
    const targets = [
      { domain: 'example.com', id: null },
      { domain: 'new.com', id: null },
    ];
    const byListing = await readTargets(api, targets, 3);
    expect(byListing.get('example.com')?.id).toBe(1);
    const perSite = await readTargets(api, targets, 1000);
    expect(perSite.get('example.com')?.id).toBe(1);
  });
});
