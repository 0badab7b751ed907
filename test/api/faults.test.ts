import { afterEach, describe, expect, it } from 'vitest';
import type { WebsitesApi } from '../../src/api/index.js';
import { type Fault, type FaultProxy, scripted, seeded, startFaultProxy } from '../helpers/fault-proxy.js';
import { insertWebsite } from '../helpers/server.js';
import { desired, MODES, type Setup, seed, setup } from './support.js';

/** Stalls must end quickly: a short headers timeout. */
const QUICK = { timeouts: { connectMs: 1_000, headersMs: 250, bodyMs: 250, operationMs: 10_000 } };

describe.each(MODES)('through a fault-injecting proxy to the %s server', (mode) => {
  let env: Setup;
  let proxy: FaultProxy;
  let client: WebsitesApi;
  afterEach(async () => {
    await proxy.close();
    await env.close();
  });

  async function start(): Promise<void> {
    env = await setup(mode);
    proxy = await startFaultProxy({ target: env.server.url, retryAfterSeconds: 0 });
    client = env.connect({ url: proxy.url, ...QUICK });
  }

  const posts = () => proxy.log.filter((entry) => entry.method === 'POST');
  const stored = () => env.server.server.store.countWebsites(env.server.accountId);

  it('reads a complete listing through a seeded mix of resets, stalls, 5xx pages, 429s and truncated bodies', async () => {
    await start();
    await seed(env.server, 2_500);
    proxy.setPlan(
      seeded(7, { reset: 0.06, stall: 0.03, 'html-502': 0.06, 'html-503': 0.03, throttle: 0.03, truncate: 0.04 }),
    );
    const patient = env.connect({
      url: proxy.url,
      ...QUICK,
      retry: { maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 20 },
    });
    const sites = await patient.listWebsites();
    expect(sites.map((site) => site.id)).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
    const faults = proxy.log.filter((entry) => entry.fault !== 'pass').length;
    expect(faults).toBeGreaterThan(3);
    // Every request the proxy saw was the client's, and every fault was retried. Not `retries === faults`:
    // on a loaded machine a healthy answer can also miss the 250 ms header deadline and be retried.
    expect(patient.stats.requests).toBe(proxy.log.length);
    expect(patient.stats.retries).toBeGreaterThanOrEqual(faults);
    expect(patient.stats.requests - patient.stats.retries).toBe(25); // one successful attempt per page
  });

  it.each<Fault>(['commit-then-reset', 'commit-then-502', 'commit-then-stall', 'truncate'])(
    'a create whose answer is lost (%s) is looked up, not repeated',
    async (fault) => {
      await start();
      proxy.setPlan(scripted([fault], 'POST'));
      const created = await client.createWebsite(desired('lost.example.com', { email: true }));
      expect(created).toMatchObject({ id: 1, domain: 'lost.example.com', settings: { email: true } });
      expect(posts()).toHaveLength(1);
      expect(await stored()).toBe(1);
    },
  );

  it.each<Fault>(['reset', 'html-503', 'stall'])(
    'a create that never reached the server (%s) is sent again once the lookup finds nothing',
    async (fault) => {
      await start();
      proxy.setPlan(scripted([fault], 'POST'));
      const created = await client.createWebsite(desired('retry.example.com'));
      expect(created.domain).toBe('retry.example.com');
      expect(posts().map((entry) => entry.fault)).toEqual([fault, 'pass']);
      expect(await stored()).toBe(1);
    },
  );

  it('a create answered 429 waits and is sent again (the service did nothing)', async () => {
    await start();
    proxy.setPlan(scripted(['throttle', 'throttle'], 'POST'));
    await client.createWebsite(desired('busy.example.com'));
    expect(posts().map((entry) => entry.fault)).toEqual(['throttle', 'throttle', 'pass']);
    expect(client.stats).toMatchObject({ throttled: 2, retries: 2 });
  });

  it('a create that keeps failing ambiguously gives up after the attempt limit, creating nothing twice', async () => {
    await start();
    proxy.setPlan(scripted(['reset', 'reset', 'reset', 'reset'], 'POST'));
    await expect(client.createWebsite(desired('never.example.com'))).rejects.toMatchObject({ code: 'server' });
    expect(posts()).toHaveLength(4);
    expect(await stored()).toBe(0);
  });

  it('an update is retried through resets and 5xx pages', async () => {
    await start();
    const id = await insertWebsite(env.server, 'u.example.com');
    proxy.setPlan(scripted(['reset', 'html-502', 'commit-then-reset'], 'PUT'));
    const updated = await client.updateWebsite(id, { settings: { privacy: 'public' } });
    expect(updated.settings.privacy).toBe('public');
    expect(proxy.log.filter((entry) => entry.method === 'PUT')).toHaveLength(4);
  });

  it('an update answered 500 looks the site up, finds it, and sends the update again', async () => {
    await start();
    const id = await insertWebsite(env.server, 'u500.example.com');
    proxy.setPlan(scripted(['server-500'], 'PUT'));
    expect((await client.updateWebsite(id, { settings: { email: true } })).settings.email).toBe(true);
    expect(proxy.log.map((entry) => `${entry.method} ${entry.fault}`)).toEqual([
      'PUT server-500',
      'GET pass',
      'PUT pass',
    ]);
  });

  it('a delete whose answer is lost is retried, and the 404 that follows means done', async () => {
    await start();
    const id = await insertWebsite(env.server, 'd.example.com');
    proxy.setPlan(scripted(['commit-then-reset'], 'DELETE'));
    expect(await client.deleteWebsite(id)).toBe(true);
    expect(await stored()).toBe(0);
  });
});
