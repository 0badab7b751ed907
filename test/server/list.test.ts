// The list operation: Laravel paginator, page, per_page, search, favorite
// filter and sorting, in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoundRequest, client, insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';

// Created in this order (ids ascending); 23 sites = 3 pages of 10.
const SPECIAL = ['b-site.example', 'a-site.example', 'c-site.example', 'cxsite.example', '100pct.example'];
const FILLER = Array.from({ length: 18 }, (_, index) => `filler-${String(index + 1).padStart(2, '0')}.example`);

describe.each(['normal', 'phpanalytics-v31'] as const)('list websites (%s)', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let server: TestServer;
  let api: BoundRequest;
  const list = (query: string) => api('GET', `/api/v1/websites?${query}`);
  const domains = async (query: string) =>
    ((await list(query)).body.data as { domain: string }[]).map((site) => site.domain);

  beforeAll(async () => {
    server = await startTestServer(quirks ? { quirks: mode } : {});
    api = client(server);
    for (const domain of [...SPECIAL, ...FILLER]) {
      const created = await api('POST', '/api/v1/websites', { form: { domain } });
      if (domain === 'a-site.example')
        await api('PATCH', `/api/v1/websites/${created.body.data.id}`, { form: { favorite: '1' } });
    }
    // Another account's websites are never listed.
    const other = await server.createAccount();
    await api('POST', '/api/v1/websites', { key: other.key, form: { domain: 'other-account.example' } });
  });
  afterAll(() => server.close());

  it('answers the Laravel paginator, newest first by default', async () => {
    const response = await list('page=2');
    expect(response.status).toBe(200);
    const base = `${server.url}/api/v1/websites`;
    const searchBy = mode === 'normal' ? '' : 'search_by=domain&';
    const link = (page: number) => `${base}?${searchBy}sort_by=id&sort=desc&per_page=10&page=${page}`;
    expect(response.body).toEqual({
      data: expect.any(Array),
      links: { first: link(1), last: link(3), prev: link(1), next: link(3) },
      meta: {
        current_page: 2,
        from: 11,
        last_page: 3,
        links: [
          { url: link(1), label: '&laquo; Previous', active: false },
          { url: link(1), label: '1', active: false },
          { url: link(2), label: '2', active: true },
          { url: link(3), label: '3', active: false },
          { url: link(3), label: 'Next &raquo;', active: false },
        ],
        path: base,
        per_page: mode === 'normal' ? 10 : '10',
        to: 20,
        total: 23,
      },
      status: 200,
    });
    expect(response.body.data[0].domain).toBe('filler-08.example');
    expect(response.body.data).toHaveLength(10);
  });

  it('answers an empty page past the end', async () => {
    const response = await list('page=9');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.meta).toMatchObject({ current_page: 9, from: null, to: null, last_page: 3, total: 23 });
    expect(response.body.links.next).toBeNull();
  });

  it.each([
    ['per_page=25', 23, 25],
    ['per_page=50', 23, 50],
    ['per_page=100', 23, 100],
    ['per_page=7', 10, 10],
    ['per_page=abc', 10, 10],
    ['per_page=1000', 10, 10],
  ])('%s gives %i rows (per_page %i)', async (query, rows, perPage) => {
    const response = await list(query);
    expect(response.body.data).toHaveLength(rows);
    expect(response.body.meta.per_page).toBe(mode === 'normal' ? perPage : String(perPage));
  });

  it('falls back to page 1 for an unreadable page', async () => {
    for (const page of ['0', '-1', 'x']) expect((await list(`page=${page}`)).body.meta.current_page).toBe(1);
  });

  it('sorts by id or domain, ascending or descending; unknown values fall back to id desc', async () => {
    expect((await domains('sort_by=id&sort=asc&per_page=25')).slice(0, 5)).toEqual(SPECIAL);
    expect((await domains('sort_by=domain&sort=asc')).slice(0, 3)).toEqual([
      '100pct.example',
      'a-site.example',
      'b-site.example',
    ]);
    expect((await domains('sort_by=domain&sort=desc')).slice(0, 2)).toEqual(['filler-18.example', 'filler-17.example']);
    expect((await domains('sort_by=name&sort=sideways')).slice(0, 2)).toEqual([
      'filler-18.example',
      'filler-17.example',
    ]);
  });

  it.each([
    'sort_by=id&sort=asc',
    'sort_by=id&sort=desc',
    'sort_by=domain&sort=asc',
    'sort_by=domain&sort=desc',
    'sort_by=domain&sort=asc&search=e&favorite=0',
  ])('pages of 10 add up to the whole list (%s)', async (query) => {
    const whole = await domains(`${query}&per_page=25`);
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(...(await domains(`${query}&page=${page}`)));
    expect(pages).toEqual(whole);
    expect(new Set(pages).size).toBe(pages.length);
  });

  it('searches domains by substring', async () => {
    expect(await domains('search=site&search_by=domain&sort_by=domain&sort=asc')).toEqual([
      'a-site.example',
      'b-site.example',
      'c-site.example',
      'cxsite.example',
    ]);
    const response = await list('search=SITE');
    expect(response.body.meta.total).toBe(4);
    expect(response.body.links.first).toBe(
      `${server.url}/api/v1/websites?search=SITE&search_by=domain&sort_by=id&sort=desc&per_page=10&page=1`,
    );
  });

  it(quirks ? 'treats % and _ as LIKE wildcards (real)' : 'matches % and _ literally', async () => {
    expect(await domains('search=c_site&sort_by=domain&sort=asc')).toEqual(
      quirks ? ['c-site.example', 'cxsite.example'] : [],
    );
    expect((await domains('search=%25')).length).toBe(quirks ? 10 : 0);
  });

  it('filters favourites with favorite=1/0', async () => {
    expect(await domains('favorite=1')).toEqual(['a-site.example']);
    const others = await list('favorite=0');
    expect(others.body.meta.total).toBe(22);
  });

  it('lists each record exactly as show presents it, escaping included', async () => {
    const created = await api('POST', '/api/v1/websites', {
      json: {
        domain: 'zz-escapes.example',
        privacy: 2,
        password: 'pw',
        exclude_params: 'quote"d\r\nback\\slash\ttab',
        exclude_ips: "10.0.0.1\n::1\n'single'",
        favorited_at: '2024-05-01T10:20:30',
      },
    });
    const id = created.body.data.id;
    await api('PATCH', `/api/v1/websites/${id}`, { form: { favorite: '1' } });
    const shown = (await api('GET', `/api/v1/websites/${id}`)).body.data;
    const listed = (await list('search=zz-escapes')).body.data;
    expect(listed).toEqual([shown]);
    expect(Object.keys(listed[0])).toEqual(Object.keys(shown));
    expect(shown.exclude_ips).toBe("10.0.0.1\n::1\n'single'");
    if (!quirks) expect(shown.exclude_params).toBe('quote"d\r\nback\\slash\ttab');
    await api('DELETE', `/api/v1/websites/${id}`);
  });

  it(
    quirks ? 'ignores favorite=true/false (real: numeric only)' : 'filters favourites with favorite=true/false',
    async () => {
      expect((await list('favorite=true')).body.meta.total).toBe(quirks ? 23 : 1);
      expect((await list('favorite=false')).body.meta.total).toBe(quirks ? 23 : 22);
    },
  );
});

describe('list page links over many pages', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    // 200 sites = 20 pages: enough for Laravel's "..." windows. Inserted through the store for speed.
    for (let index = 0; index < 200; index += 1) {
      await insertWebsite(server, `many-${index}.example`);
    }
  });
  afterAll(() => server.close());

  it.each([
    [1, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '19', '20']],
    [10, ['1', '2', '...', '7', '8', '9', '10', '11', '12', '13', '...', '19', '20']],
    [18, ['1', '2', '...', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20']],
  ])("page %i shows the labels of Laravel's window", async (page, labels) => {
    const response = await client(server)('GET', `/api/v1/websites?page=${page}`);
    const links = response.body.meta.links as { label: string; url: string | null }[];
    expect(links.slice(1, -1).map((link) => link.label)).toEqual(labels);
    expect(links.find((link) => link.label === '...')?.url).toBeNull();
  });
});
