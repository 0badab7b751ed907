// Listings from servers that paginate differently from the reference server (through a rewriting proxy):
// the client must still read every site, or fail; a partial listing would make a prune plan wrong.
import { afterEach, describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { type FaultProxy, type ProxiedRequest, startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, policy } from '../plan/builders.js';
import { type Setup, seed, setup } from './support.js';

interface PageBody {
  data: { id: number }[];
  links?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

const pageOf = (request: ProxiedRequest) => new URL(request.path, 'http://server').searchParams.get('page');
const isListing = (request: ProxiedRequest) => request.method === 'GET' && request.path.startsWith('/api/v1/websites?');

describe('a listing through a server that paginates differently', () => {
  let env: Setup;
  let proxy: FaultProxy;
  afterEach(async () => {
    await proxy.close();
    await env.close();
  });

  /** `answer` edits the page in place, or returns the body to send instead. */
  async function start(count: number, answer: (page: PageBody, request: ProxiedRequest) => unknown) {
    env = await setup('normal');
    await seed(env.server, count);
    proxy = await startFaultProxy({
      target: env.server.url,
      rewrite: (request, body) => {
        if (!isListing(request)) return undefined;
        return answer(body as PageBody, request) ?? body;
      },
    });
    return env.connect({ url: proxy.url });
  }

  // Laravel's simple pagination (no last_page, no total, no next link), or a bare array of sites:
  // only a short (or empty) page ends the listing.
  it.each([
    ['simple pagination', (page: PageBody) => ({ ...page, links: undefined, meta: { per_page: 100 } })],
    ['a bare array', (page: PageBody) => page.data],
  ])('%s: every site of exactly full pages is read', async (_, answer) => {
    const client = await start(200, answer);
    const sites = await client.listWebsites();
    expect(sites.map((site) => site.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(client.stats.requests).toBe(3); // two full pages, then the empty page that ends the listing

    // A prune plan over it deletes exactly the one site left out of the configuration, and creates nothing.
    const config = sites.filter((site) => site.domain !== 'site-150.example.com').map((site) => desired(site.domain));
    const changes = plan(config, sites, policy({ prune: true })).changes;
    expect(changes.map((change) => `${change.action} ${change.domain}`)).toEqual(['delete site-150.example.com']);
  });

  it('a bare array: a short page is the last one, without an extra request', async () => {
    const client = await start(150, (page) => page.data);
    expect(await client.listWebsites()).toHaveLength(150);
    expect(client.stats.requests).toBe(2);
  });

  it('a next link on every page, even an empty one: the empty page ends the listing', async () => {
    const client = await start(100, (page) => ({ data: page.data, links: { next: 'http://server/next' } }));
    expect(await client.listWebsites()).toHaveLength(100);
    expect(client.stats.requests).toBe(2);
  });

  it('a page shorter than the announced total is an error after reading again, never a partial listing', async () => {
    // A server whose count includes a site its pages never show (page 2 loses its last record).
    const client = await start(200, (page, request) => {
      if (pageOf(request) === '2') page.data.pop();
    });
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'protocol',
      details: { reason: 'unstable_listing' },
      message:
        'the website list changed while it was read, 3 times (199 websites read, 200 announced); nothing was changed, try again when no one else is editing the account',
    });
    expect(client.stats.requests).toBe(6);
  });

  it('with a next link but no last_page or total: the last full page ends the listing, without an extra request', async () => {
    const client = await start(200, (page) => {
      delete page.meta?.last_page;
      delete page.meta?.total;
    });
    expect(await client.listWebsites()).toHaveLength(200);
    expect(client.stats.requests).toBe(2);
  });

  it('a last_page past 10,000 pages is refused after the first request', async () => {
    const client = await start(3, (page) => {
      if (page.meta) page.meta.last_page = 10_001;
    });
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'protocol',
      message: 'the listing claims 10001 pages; refusing to read that many',
    });
    expect(client.stats.requests).toBe(1);
  });

  // A cache in front of the service that ignores the query string answers page 1 for every page.
  it.each([
    ['that says which page it is', 'asked for page 2, got page 1'],
    ['that does not say which page it is', 'website 1 appeared on two pages'],
  ])('a server answering page 1 again, %s, is an error, never a listing', async (_, problem) => {
    let first: PageBody | undefined;
    const client = await start(150, (page) => {
      first ??= structuredClone(page);
      Object.assign(page, structuredClone(first));
      if (problem.startsWith('website')) delete page.meta?.current_page;
    });
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'protocol',
      details: { reason: 'unstable_listing' },
      message: expect.stringContaining(`3 times (${problem})`),
    });
  });

  it('a page that keeps failing fails the listing with its own error, never a partial listing', async () => {
    const client = await start(250, () => undefined);
    proxy.setPlan((request) => (pageOf(request) === '2' ? 'server-500' : 'pass'));
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'server',
      message: expect.stringContaining('page=2'),
    });
  });

  it('an interrupt during the concurrent pages stops the listing as interrupted', async () => {
    const controller = new AbortController();
    const client = await start(250, () => undefined);
    proxy.setPlan((request) => {
      if (pageOf(request) === '2') controller.abort(new Error('SIGINT'));
      return 'pass';
    });
    await expect(client.listWebsites({ signal: controller.signal })).rejects.toMatchObject({ code: 'interrupted' });
  });
});
