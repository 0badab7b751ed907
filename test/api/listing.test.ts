import { afterEach, describe, expect, it } from 'vitest';
import { insertWebsite } from '../helpers/server.js';
import { MODES, type Setup, seed, setup } from './support.js';

describe.each(MODES)('listWebsites against the %s server', (mode) => {
  let env: Setup;
  afterEach(() => env.close());

  it.each([
    [0, 1],
    [1, 1],
    [100, 1],
    [101, 2],
    [2_500, 25],
  ])('returns all %i sites in id order with %i page requests', async (count, pages) => {
    env = await setup(mode);
    await seed(env.server, count);
    const sites = await env.client.listWebsites();
    expect(sites).toHaveLength(count);
    expect(sites.map((site) => site.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    if (count > 0) expect(sites[count - 1]?.domain).toBe(`site-${count}.example.com`);
    expect(env.client.stats).toEqual({ requests: pages, retries: 0, throttled: 0 });
  });

  it('decodes every field of a listed site in its canonical form', async () => {
    env = await setup(mode);
    await insertWebsite(env.server, 'stored.example.com', {
      values: {
        privacy: null,
        email: null,
        excludeBots: null,
        excludeIps: '10.0.0.1\r\n::1\r\n',
        excludeParams: 'b\na',
        favoritedAt: '2026-01-02T03:04:05',
      },
    });
    const [site] = await env.client.listWebsites();
    expect(site?.settings).toEqual({
      privacy: 'public',
      email: false,
      excludeBots: false,
      excludeIps: ['10.0.0.1', '::1'],
      favorite: true,
      // The real service never returns exclude_params: it is write-only there, so it is absent, not empty.
      ...(mode === 'normal' && { excludeParams: ['a', 'b'] }),
    });
    expect(site?.hasPassword).toBe(false);
  });

  it('lists only the sites of its own account', async () => {
    env = await setup(mode);
    const other = await env.server.createAccount();
    await seed(env.server, 3);
    await insertWebsite(env.server, 'theirs.example.com', { accountId: other.id });
    const domains = (await env.client.listWebsites()).map((site) => site.domain);
    expect(domains).toEqual(['site-1.example.com', 'site-2.example.com', 'site-3.example.com']);
  });

  it('finds a site by exact canonical domain among substring matches', async () => {
    env = await setup(mode);
    await seed(env.server, 120); // site-1 matches site-1, site-10..19, site-100..119
    expect((await env.client.findWebsite('WWW.Site-1.Example.com'))?.id).toBe(1);
    expect((await env.client.findWebsite('site-119.example.com'))?.id).toBe(119);
    expect(await env.client.findWebsite('site-1.example')).toBeUndefined();
    expect(env.client.stats.requests).toBe(3); // one page of matches each: no request past the last page
  });

  it('lists named sites through search: every page of substring matches, exact domains kept', async () => {
    env = await setup(mode);
    // 250 substring matches of example.com (three pages of search results), one exact match among them.
    const domains = Array.from({ length: 250 }, (_, i) => `x${i + 1}.example.com`);
    domains.splice(200, 0, 'example.com');
    for (const domain of domains) await insertWebsite(env.server, domain);
    await insertWebsite(env.server, 'other.test');
    const sites = await env.client.listWebsitesNamed(['Example.com', 'other.test', 'absent.test']);
    expect(sites.map((site) => `${site.id} ${site.domain}`)).toEqual(['201 example.com', '252 other.test']);
    expect(env.client.stats.requests).toBe(3 + 1 + 1);
    // One lookup walks the search's pages until the exact domain (on page 3), then stops.
    expect((await env.client.findWebsite('example.com'))?.id).toBe(201);
    expect(env.client.stats.requests).toBe(3 + 1 + 1 + 3);
  });

  it('lists named sites in id order, whatever the order asked', async () => {
    env = await setup(mode);
    await seed(env.server, 3);
    const sites = await env.client.listWebsitesNamed(['site-3.example.com', 'site-1.example.com']);
    expect(sites.map((site) => site.id)).toEqual([1, 3]);
  });

  it('an international domain: found by its ASCII or Unicode search, else in the whole account', async () => {
    env = await setup(mode);
    await insertWebsite(env.server, 'bücher.example'); // stored in Unicode: only the Unicode search finds it
    await insertWebsite(env.server, 'cafe\u0301.example'); // a decomposed accent: no search finds it
    const unicode = await env.client.listWebsitesNamed(['xn--bcher-kva.example']);
    expect(unicode.map((site) => site.domain)).toEqual(['bücher.example']);
    expect(env.client.stats.requests).toBe(2);
    const decomposed = await env.client.listWebsitesNamed(['café.example']);
    expect(decomposed.map((site) => site.id)).toEqual([2]);
    expect(env.client.stats.requests).toBe(2 + 3); // two searches, then the whole account
  });
});

/**
 * Runs `change` (another writer) after the server has read page 1 and before it answers it, awaited, so the
 * change is committed before the client can ask for page 2, on every backend.
 */
function afterPageOne(env: Setup, change: () => Promise<unknown> | undefined): void {
  const store = env.server.server.store;
  const listWebsites = store.listWebsites.bind(store);
  store.listWebsites = async (query, shape) => {
    const page = await listWebsites(query, shape);
    if (query.offset === 0) await change();
    return page;
  };
}

describe('a listing that changes while it is read', () => {
  let env: Setup;
  afterEach(() => env.close());

  it('is read again, and the result is the listing after the change', async () => {
    env = await setup('normal');
    // Between page 1 and the rest, site 1 is deleted out of band: page 2 now starts one site later.
    let changes = 1;
    afterPageOne(env, () =>
      changes-- > 0 ? env.server.server.store.deleteWebsite(env.server.accountId, 1) : undefined,
    );
    await seed(env.server, 250);
    const sites = await env.client.listWebsites();
    expect(sites.map((site) => site.id)).toEqual(Array.from({ length: 249 }, (_, i) => i + 2));
    expect(env.client.stats.requests).toBe(6);
  });

  it('is an error, never a partial result, when it keeps changing', async () => {
    env = await setup('normal');
    let next = 1000;
    afterPageOne(env, () => insertWebsite(env.server, `new-${next++}.example.com`));
    await seed(env.server, 150);
    await expect(env.client.listWebsites()).rejects.toMatchObject({
      code: 'protocol',
      details: { reason: 'unstable_listing' },
      message: expect.stringContaining('the website list changed while it was read, 3 times (total went from'),
    });
  });
});
