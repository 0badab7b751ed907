// Issue 37: the rows of the deployed-service comparison that need state, a Host header, a path
// fetch cannot send, or a throttle (the raw request → raw answer rows: quirks-v31-round4-rows.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/manual-clock.js';
import { rawGet } from '../helpers/raw-http.js';
import { insertWebsite, request, startTestServer, type TestServer } from '../helpers/server.js';

const QUIRKS = { quirks: 'phpanalytics-v31' } as const;
const STAMP = /"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z"/.source;

describe('quirks phpanalytics-v31: issue 37, answers that depend on stored websites', () => {
  let server: TestServer;
  const api = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
    request(server.url, method, path, { key: server.key, ...options });

  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, throttlePerMinute: 1000 });
  });
  afterAll(() => server.close());

  it("row 2: JSON as json_encode writes it: the resource's key order, \\/ and \\u00fc, on writes and lists", async () => {
    const created = await api('POST', '/api/v1/websites', { form: { domain: 'bücher-json.example', privacy: '0' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.text).toMatch(
      new RegExp(
        `^\\{"data":\\{"id":${id},"domain":"b\\\\u00fccher-json\\.example","privacy":"0","email":null,"password":false,"exclude_bots":1,"exclude_ips":null,"favorite":false,"favorited_at":null,"created_at":${STAMP},"updated_at":${STAMP}\\},"status":200\\}$`,
      ),
    );
    // The list page: the store serialises the records (SQLite or PostgreSQL), in the same bytes.
    const listed = await api('GET', '/api/v1/websites?search=json');
    expect(listed.text).toMatch(
      new RegExp(
        `^\\{"data":\\[\\{"id":${id},"domain":"b\\\\u00fccher-json\\.example","privacy":0,"email":null,"password":false,"exclude_bots":1,"exclude_ips":null,"favorite":false,"favorited_at":null,"created_at":${STAMP},"updated_at":${STAMP}\\}\\],"links":\\{"first":"http:\\\\/\\\\/127\\.0\\.0\\.1:\\d+\\\\/api\\\\/v1\\\\/websites\\?search=json&search_by=domain&sort_by=id&sort=desc&per_page=10&page=1"`,
      ),
    );
  });

  it('row 11: ?favorite=2 lists the favourites (any number but 0), ?favorite=0 the others', async () => {
    const favourite = await insertWebsite(server, 'fav.filter.example', {
      values: { favoritedAt: '2026-01-02T03:04:05' },
    });
    const plain = await insertWebsite(server, 'plain.filter.example');
    const ids = async (favorite: string) =>
      (await api('GET', `/api/v1/websites?search=filter.example&favorite=${favorite}`)).body.data.map(
        (site: { id: number }) => site.id,
      );
    expect(await ids('2')).toEqual([favourite]);
    expect(await ids('-1')).toEqual([favourite]);
    expect(await ids('0')).toEqual([plain]);
    expect(await ids('true')).toEqual([plain, favourite]);
  });

  it("row 13: an item route reads the id's leading number, as MariaDB compares it (show, update, delete)", async () => {
    const id = await insertWebsite(server, 'cast.example');
    expect((await api('GET', `/api/v1/websites/${id}abc`)).body.data.domain).toBe('cast.example');
    expect(
      (await api('PUT', `/api/v1/websites/${id}.0`, { form: { privacy: '2', password: 'a-password' } })).status,
    ).toBe(200);
    expect((await api('GET', `/api/v1/websites/${id}`)).body.data.password).toBe(true);
    expect((await api('GET', '/api/v1/websites/abc')).status).toBe(404);
    const deleted = await api('DELETE', `/api/v1/websites/${id}xyz`);
    expect(deleted.body).toEqual({ id, object: 'website', deleted: true, status: 200 });
  });

  it('row 19: a POST with _method or X-HTTP-Method-Override is the method it names', async () => {
    const id = await insertWebsite(server, 'override.example');
    const item = `/api/v1/websites/${id}`;
    const put = await api('POST', item, { form: { _method: 'put', privacy: '0' } });
    expect([put.status, put.body.data?.privacy]).toEqual([200, '0']);
    const patch = await api('POST', `${item}?_method=PATCH`, { json: { email: 1 } });
    expect([patch.status, patch.body.data?.email]).toEqual([200, 1]);
    // The body's _method wins over the query's, and the header over both.
    const shown = await api('POST', `${item}?_method=DELETE`, { form: { _method: 'GET' } });
    expect([shown.status, shown.body.data?.domain]).toEqual([200, 'override.example']);
    const wrong = await api('POST', '/api/v1/websites', { form: { _method: 'PUT' } });
    expect(wrong.status).toBe(405);
    expect(wrong.body.message).toBe(
      'The PUT method is not supported for route api/v1/websites. Supported methods: GET, HEAD, POST.',
    );
    const deleted = await api('POST', item, {
      headers: { 'x-http-method-override': 'DELETE' },
      form: { _method: 'PUT' },
    });
    expect(deleted.body).toEqual({ id, object: 'website', deleted: true, status: 200 });
    expect((await api('GET', item)).status).toBe(404);
  });

  it('row 15: multipart parts are read as $_POST (files left out, name[] an array), within the bounds', async () => {
    const boundary = 'b0undary';
    const part = (disposition: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: text/plain\r\n\r\n${value}\r\n`;
    const post = (body: string) =>
      fetch(`${server.url}/api/v1/websites`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.key}`,
          accept: 'application/json',
          'content-type': `multipart/form-data; boundary="${boundary}"`,
        },
        body,
      });
    const created = await post(
      `${part('name="domain"', 'parts.example')}${part('name="exclude_ips"', '10.0.0.1\r\n10.0.0.2')}${part('name="privacy"; filename="p.txt"', '2')}--${boundary}--\r\n`,
    );
    expect(created.status).toBe(201);
    expect(((await created.json()) as { data: unknown }).data).toMatchObject({
      domain: 'parts.example',
      privacy: null,
      exclude_ips: '10.0.0.1\r\n10.0.0.2',
    });
    const array = await post(`${part('name="domain[]"', 'array.example')}--${boundary}--\r\n`);
    expect(array.status).toBe(500);
    const many = Array.from({ length: 101 }, (_, index) => part(`name="f${index}"`, 'x')).join('');
    expect((await post(`${many}--${boundary}--\r\n`)).status).toBe(413);
  });

  it("row 20: an admin's update naming user_id: authorize() wants the website among that user's (404), then the usual update", async () => {
    const admin = await server.createAccount({ admin: true });
    const other = await server.createAccount();
    const own = await insertWebsite(server, 'admin-own.example', { accountId: admin.id });
    const theirs = await insertWebsite(server, 'admin-theirs.example', { accountId: other.id });
    const put = (id: number, form: Record<string, string>, key = admin.key) =>
      request(server.url, 'PUT', `/api/v1/websites/${id}`, { key, form });
    const missing = await put(own, { user_id: String(other.id), privacy: '0' });
    expect([missing.status, missing.text]).toEqual([
      404,
      '{"message":"No query results for model [App\\\\Models\\\\Website]."}',
    ]);
    // Before validation, as the 403 of a user who is no admin.
    expect((await put(own, { user_id: String(other.id), privacy: 'abc' })).status).toBe(404);
    expect((await put(own, { user_id: String(other.id) }, other.key)).status).toBe(403);
    // Naming the owner passes authorize(); the controller then looks the website up in the admin's own account.
    const mine = await put(own, { user_id: String(admin.id), privacy: '0' });
    expect([mine.status, mine.body.data?.privacy]).toEqual([200, '0']);
    expect((await put(own, { user_id: String(admin.id), privacy: 'abc' })).status).toBe(422);
    expect((await put(theirs, { user_id: String(other.id), privacy: '0' })).status).toBe(500);
    expect((await api('GET', `/api/v1/websites/${own}`, { key: admin.key })).body.data.privacy).toBe(0);
  });

  it('row 21: a complete statistics request is a 200 with an empty page (the bare paginator)', async () => {
    const id = await insertWebsite(server, 'stats.example');
    const answer = await api('GET', `/api/v1/stats/${id}?name=visitors&from=2024-01-01&to=2024-12-31`);
    expect(answer.status).toBe(200);
    const url = `${server.url.replaceAll('/', '\\/')}\\/api\\/v1\\/stats\\/${id}`;
    const page = `${url}?name=visitors&from=2024-01-01&to=2024-12-31&search_by=value&sort_by=count&sort=desc&per_page=10&page=1`;
    expect(answer.text).toBe(
      `{"current_page":1,"data":[],"first_page_url":"${page}","from":null,"last_page":1,"last_page_url":"${page}","links":[{"url":null,"label":"&laquo; Previous","active":false},{"url":"${page}","label":"1","active":true},{"url":null,"label":"Next &raquo;","active":false}],"next_page_url":null,"path":"${url}","per_page":"10","prev_page_url":null,"to":null,"total":0,"status":200}`,
    );
    expect((await api('GET', '/api/v1/stats/987654?name=visitors&from=2024-01-01&to=2024-12-31')).status).toBe(404);
  });
});

describe('quirks phpanalytics-v31: issue 37, what fetch cannot send', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(QUIRKS);
  });
  afterAll(() => server.close());

  it('row 8: an encoded dot segment is not resolved: /api/v1/websites/%2e%2e/account is no route (404)', async () => {
    const answer = await rawGet(server.url, '/api/v1/websites/%2e%2e/account', {
      authorization: `Bearer ${server.key}`,
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'Resource not found.', status: 404 });
  });

  it("row 10: page links are built from the request's Host (no --public-url)", async () => {
    const answer = await rawGet(server.url, '/api/v1/websites', {
      host: 'other.example:9999',
      authorization: `Bearer ${server.key}`,
    });
    expect(answer.body.meta.path).toBe('http://other.example:9999/api/v1/websites');
    expect(answer.body.links.first).toBe(
      'http://other.example:9999/api/v1/websites?search_by=domain&sort_by=id&sort=desc&per_page=10&page=1',
    );
  });
});

describe('quirks phpanalytics-v31: issue 37, the fallback and the error pages under the throttle', () => {
  const clock = manualClock(1_790_000_200_000);
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, throttlePerMinute: 2, throttleClock: clock.now });
  });
  afterAll(() => server.close());

  it("rows 6 and 18: an unknown /api/v1 path is throttled (429), and a browser gets the app's page", async () => {
    expect((await request(server.url, 'GET', '/api/v1/unknown', { key: server.key })).status).toBe(404);
    expect((await request(server.url, 'GET', '/api/v1/unknown', { key: server.key })).status).toBe(404);
    const refused = await request(server.url, 'GET', '/api/v1/unknown', { key: server.key });
    expect(refused.status).toBe(429);
    expect(refused.text).toBe('{\n    "message": "Too Many Attempts."\n}');
    const page = await request(server.url, 'GET', '/api/v1/websites', { key: server.key, accept: null });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(page.text).toContain('<title>Too many requests - phpAnalytics</title>');
    expect(page.headers.get('retry-after')).not.toBeNull();
  });
});

describe("quirks phpanalytics-v31: sitesync's own paths are on the operator's address, not the API port", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, metricsAddr: '127.0.0.1:0' });
  });
  afterAll(() => server.close());

  it('the API port answers /ready, /health and /api/v1/openapi.json as the deployed service does', async () => {
    for (const path of ['/ready', '/health']) {
      const answer = await request(server.url, 'GET', path);
      expect([path, answer.status, answer.body]).toEqual([
        path,
        404,
        { message: `The route ${path.slice(1)} could not be found.` },
      ]);
    }
    expect((await request(server.url, 'GET', '/api/v1/openapi.json')).status).toBe(401);
    expect((await request(server.url, 'GET', '/api/v1/openapi.json', { key: server.key })).status).toBe(404);
  });

  it("the operator's listener (--metrics-addr) serves them beside /metrics", async () => {
    const operator = server.server.metricsUrl!.replace(/\/metrics$/, '');
    expect((await request(operator, 'GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await request(operator, 'GET', '/ready')).body).toEqual({ status: 'ready' });
    const document = await request(operator, 'GET', '/api/v1/openapi.json');
    expect(document.body.info.title).toBe('sitesync websites API (phpAnalytics v31 quirks)');
    expect((await request(operator, 'GET', '/metrics')).status).toBe(200);
  });
});
