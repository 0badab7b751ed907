// Search through the trigram index and the favourite filter through its partial
// indexes give exactly what a substring scan gives: NUL matches literally,
// `%`/`_` are literal in normal mode and wildcards in quirks mode, short searches
// (no 3-character run) still work, other accounts never show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoundRequest, client, insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';

const DOMAINS = [
  'alpha-shop.example',
  'beta-shop.example',
  'shopping.example',
  'a1b.example',
  'xy.example',
  'gamma.example',
  'sh0p.example',
];

describe.each(['normal', 'phpanalytics-v31'] as const)('search and favourites at scale (%s)', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let server: TestServer;
  let api: BoundRequest;
  const found = async (search: string) => {
    const response = await api('GET', `/api/v1/websites?search=${search}&sort_by=domain&sort=asc&per_page=100`);
    expect(response.status).toBe(200);
    const domains = (response.body.data as { domain: string }[]).map((site) => site.domain);
    expect(response.body.meta.total).toBe(domains.length);
    return domains;
  };

  beforeAll(async () => {
    server = await startTestServer(quirks ? { quirks: mode } : {});
    api = client(server);
    for (const [index, domain] of DOMAINS.entries()) {
      await insertWebsite(server, domain, { values: { favoritedAt: index % 2 ? '2024-01-01T00:00:00' : null } });
    }
    const other = await server.createAccount();
    await insertWebsite(server, 'other-shop.example', { accountId: other.id });
  });
  afterAll(() => server.close());

  it('matches a NUL literally: nothing, not every row', async () => {
    expect(await found('%00')).toEqual([]);
    expect(await found('shop%00')).toEqual([]);
  });

  it('finds substrings of 3+ characters through the index, case-insensitively', async () => {
    expect(await found('shop')).toEqual(['alpha-shop.example', 'beta-shop.example', 'shopping.example']);
    expect(await found('SHOP.EX')).toEqual(['alpha-shop.example', 'beta-shop.example']);
    expect(await found('ha-shop')).toEqual(['alpha-shop.example']);
    expect(await found('%22shop')).toEqual([]); // a double quote cannot break the index query
  });

  it('finds 1–2 character searches too', async () => {
    expect(await found('xy')).toEqual(['xy.example']);
    expect(await found('1')).toEqual(['a1b.example']);
  });

  it(quirks ? 'treats % and _ as wildcards (real service)' : 'treats % and _ literally', async () => {
    expect(await found('sh_p')).toEqual(
      quirks ? ['alpha-shop.example', 'beta-shop.example', 'sh0p.example', 'shopping.example'] : [],
    );
    expect(await found('alpha%25example')).toEqual(quirks ? ['alpha-shop.example'] : []);
    expect(await found('a_b')).toEqual(quirks ? ['a1b.example'] : []);
  });

  it('filters favourites, alone and with a search, with exact totals', async () => {
    const favourites = await api('GET', '/api/v1/websites?favorite=1&sort_by=domain&sort=asc');
    expect(favourites.body.data.map((site: { domain: string }) => site.domain)).toEqual([
      'a1b.example',
      'beta-shop.example',
      'gamma.example',
    ]);
    expect(favourites.body.meta.total).toBe(3);
    expect((await api('GET', '/api/v1/websites?favorite=0')).body.meta.total).toBe(4);
    const both = await api('GET', '/api/v1/websites?favorite=1&search=shop');
    expect(both.body.data.map((site: { domain: string }) => site.domain)).toEqual(['beta-shop.example']);
  });
});
