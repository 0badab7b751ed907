// Quirks mode answers as the deployed phpAnalytics v31 does, row by row (issue 11), with literal bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/manual-clock.js';
import { insertWebsite, request, startTestServer, type TestServer } from '../helpers/server.js';
import { ROUND4_ROWS } from './quirks-v31-round4-rows.js';
import { ROWS } from './quirks-v31-rows.js';

const QUIRKS = { quirks: 'phpanalytics-v31' } as const;

describe('quirks phpanalytics-v31: answers', () => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, log: (line) => lines.push(line) });
  });
  afterAll(() => server.close());

  it('sends meta.per_page as a string and search_by=domain in every link', async () => {
    const response = await request(server.url, 'GET', '/api/v1/websites?per_page=100', { key: server.key });
    expect(response.status).toBe(200);
    expect(response.body.meta.per_page).toBe('100');
    const first = `${server.url}/api/v1/websites?search_by=domain&sort_by=id&sort=desc&per_page=100&page=1`;
    expect(response.body.links).toEqual({ first, last: first, prev: null, next: null });
    expect(response.body.meta.links[1]).toEqual({ url: first, label: '1', active: true });
    const plain = await request(server.url, 'GET', '/api/v1/websites', { key: server.key });
    expect(plain.body.meta.per_page).toBe('10');
  });

  it('accepts the key as ?api_token= and never logs it', async () => {
    const response = await request(server.url, 'GET', `/api/v1/websites?api_token=${server.key}`, { key: null });
    expect(response.status).toBe(200);
    expect(lines.some((line) => line.includes(server.key))).toBe(false);
    expect(lines.some((line) => line.includes('"path":"/api/v1/websites"') && line.includes('"status":200'))).toBe(
      true,
    );
    const wrong = await request(server.url, 'GET', '/api/v1/websites?api_token=not-a-key-0123456789', { key: null });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Unauthenticated.' });
  });

  it.each(['a_b.quirks.example', 'trailing.quirks.example.', 'bücher.quirks.example'])(
    'stores %s as sent',
    async (domain) => {
      const created = await request(server.url, 'POST', '/api/v1/websites', {
        key: server.key,
        form: { domain, privacy: '0' },
      });
      expect(created.status).toBe(201);
      expect(created.body.data.domain).toBe(domain);
    },
  );

  it('says "Invalid domain name." and "The password field is required."', async () => {
    const bad = await request(server.url, 'POST', '/api/v1/websites', { key: server.key, form: { domain: 'no dots' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ message: { domain: ['Invalid domain name.'] }, status: 422 });
    const secret = await request(server.url, 'POST', '/api/v1/websites', {
      key: server.key,
      form: { domain: 'secret.quirks.example', privacy: '2' },
    });
    expect(secret.status).toBe(422);
    expect(secret.body).toEqual({ message: { password: ['The password field is required.'] }, status: 422 });
  });

  it('refuses user_id on update (403), accepts email=5', async () => {
    const id = await insertWebsite(server, 'update.quirks.example');
    const path = `/api/v1/websites/${id}`;
    const moved = await request(server.url, 'PUT', path, { key: server.key, form: { user_id: '2' } });
    expect(moved.status).toBe(403);
    expect(moved.body).toEqual({ message: 'This action is unauthorized.' });
    const updated = await request(server.url, 'PUT', path, { key: server.key, form: { email: '5' } });
    expect(updated.status).toBe(200);
    const shown = await request(server.url, 'GET', path, { key: server.key });
    expect(shown.body.data).toMatchObject({ email: 5 });
  });

  it('takes any integer for email, and its TINYINT column refuses what it cannot hold: 500, nothing stored (issue 37 row 14, both backends)', async () => {
    const send = (method: string, path: string, email: string) =>
      request(server.url, method, path, { key: server.key, form: { domain: 'email-new.quirks.example', email } });
    const id = await insertWebsite(server, 'email.quirks.example', { values: { email: 1 } });
    const item = `/api/v1/websites/${id}`;
    for (const [method, path, email] of [
      ['POST', '/api/v1/websites', '300'],
      ['POST', '/api/v1/websites', '-129'],
      ['PUT', item, '200'],
      ['PUT', item, '2147483648'],
      ['PUT', item, '9223372036854775807'],
    ] as const) {
      const refused = await send(method, path, email);
      expect([method, email, refused.status, refused.body]).toEqual([method, email, 500, { message: 'Server Error' }]);
    }
    // Nothing was stored: no new website, and the update left email as it was.
    expect((await request(server.url, 'GET', item, { key: server.key })).body.data.email).toBe(1);
    const created = await request(server.url, 'GET', '/api/v1/websites?search=email-new', { key: server.key });
    expect(created.body.meta.total).toBe(0);
    // Past 64 bits it is no integer (FILTER_VALIDATE_INT): 422.
    expect((await send('PUT', item, '9223372036854775808')).body).toEqual({
      message: { email: ['The email field must be an integer.'] },
      status: 422,
    });
    for (const email of ['-128', '127']) expect((await send('PUT', item, email)).status).toBe(200);
  });

  it('reads search=% as a wildcard and ignores favorite=true', async () => {
    await insertWebsite(server, 'wild.quirks.example', { values: { favoritedAt: '2026-11-23T08:40:11' } });
    await insertWebsite(server, 'tame.quirks.example');
    const all = await request(server.url, 'GET', '/api/v1/websites', { key: server.key });
    const wild = await request(server.url, 'GET', '/api/v1/websites?search=%25', { key: server.key });
    expect(wild.body.meta.total).toBe(all.body.meta.total);
    const ignored = await request(server.url, 'GET', '/api/v1/websites?favorite=true', { key: server.key });
    expect(ignored.body.meta.total).toBe(all.body.meta.total);
    const favourites = await request(server.url, 'GET', '/api/v1/websites?favorite=1', { key: server.key });
    expect(favourites.body.meta.total).toBeLessThan(all.body.meta.total);
  });

  it('reads a text/plain body as empty (422 on domain), not 415', async () => {
    const response = await request(server.url, 'POST', '/api/v1/websites', {
      key: server.key,
      headers: { 'content-type': 'text/plain' },
    });
    const sent = await fetch(`${server.url}/api/v1/websites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, accept: 'application/json', 'content-type': 'text/plain' },
      body: 'domain=plain.quirks.example',
    });
    expect(response.status).toBe(422);
    expect(sent.status).toBe(422);
    expect(await sent.json()).toEqual({ message: { domain: ['The domain field is required.'] }, status: 422 });
  });

  it('answers a favourite update with favorited_at in ISO 8601 with microseconds; show keeps Y-m-d H:i:s', async () => {
    const id = await insertWebsite(server, 'favourite.quirks.example');
    const path = `/api/v1/websites/${id}`;
    const updated = await request(server.url, 'PUT', path, { key: server.key, form: { favorite: '1' } });
    expect(updated.status).toBe(200);
    // Carbon::now() with its microseconds (issue 37 row 3): not a second with zeros.
    expect(updated.body.data.favorited_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const again = await request(server.url, 'PUT', path, { key: server.key, form: { favorite: '1' } });
    const fractions = [updated, again].map((answer) => answer.body.data.favorited_at.slice(20, 26));
    expect(fractions).not.toEqual(['000000', '000000']);
    const shown = await request(server.url, 'GET', path, { key: server.key });
    expect(shown.body.data.favorited_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(shown.body.data.favorited_at).toBe(again.body.data.favorited_at.slice(0, 19).replace('T', ' '));
    expect(shown.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000000Z$/);
    const other = await request(server.url, 'PUT', path, { key: server.key, form: { privacy: '0' } });
    expect(other.body.data.favorited_at).toBe(shown.body.data.favorited_at);
  });

  it('answers the login redirect as text/html', async () => {
    const response = await request(server.url, 'GET', '/api/v1/websites', { accept: null });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${server.url}/login`);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.text).toContain(`Redirecting to <a href="${server.url}/login">`);
  });
});

describe('quirks phpanalytics-v31: the throttle is per client IP, before authentication', () => {
  const clock = manualClock(1_790_000_000_300);
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, throttlePerMinute: 5, throttleClock: clock.now });
  });
  afterAll(() => server.close());

  it('counts 401 and 403 answers and every key together; 405 is outside it', async () => {
    const noAccess = await server.createAccount({ apiAccess: false });
    const other = await server.createAccount();
    const notAllowed = await request(server.url, 'DELETE', '/api/v1/websites', { key: null });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get('x-ratelimit-limit')).toBeNull();
    const denied = await request(server.url, 'GET', '/api/v1/websites', { key: null });
    expect(denied.status).toBe(401);
    expect([denied.headers.get('x-ratelimit-limit'), denied.headers.get('x-ratelimit-remaining')]).toEqual(['5', '4']);
    const forbidden = await request(server.url, 'GET', '/api/v1/websites', { key: noAccess.key });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-ratelimit-remaining')).toBe('3');
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: server.key })).status).toBe(200);
    const last = await request(server.url, 'GET', '/api/v1/websites', { key: other.key });
    expect(last.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: server.key })).status).toBe(200);
    // Counted in whole seconds, as Laravel does: 1.5 s after the first hit, 59 s remain.
    clock.advance(1_500);
    const refused = await request(server.url, 'GET', '/api/v1/websites', { key: other.key });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(refused.headers.get('retry-after')).toBe('59');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(1_790_000_000 + 60));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    clock.advance(58_000);
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: other.key })).status).toBe(429);
    clock.advance(500);
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: other.key })).status).toBe(200);
  });
});

describe('quirks phpanalytics-v31: issue 24 and 37 rows, raw request → raw answer', () => {
  let server: TestServer;
  let id: number;

  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, throttlePerMinute: 1000 });
    id = await insertWebsite(server, 'rows.quirks.example');
  });
  afterAll(() => server.close());

  const fill = (text: string) =>
    text
      .replaceAll('{key}', server.key)
      .replaceAll('{id}', String(id))
      .replaceAll('{url}', server.url)
      .replaceAll('{basic}', Buffer.from(`someone@example.com:${server.key}`).toString('base64'));

  const rows = [
    ...ROWS.map((row) => [`issue 24 item ${row.item}: ${row.name}`, row] as const),
    ...ROUND4_ROWS.map((row) => [`issue 37 row ${row.item}: ${row.name}`, row] as const),
  ];
  it.each(rows)('%s', async (_, row) => {
    const headers = Object.fromEntries(Object.entries(row.headers ?? {}).map(([name, value]) => [name, fill(value)]));
    const body = typeof row.body === 'string' ? fill(row.body) : row.body;
    const response = await fetch(`${server.url}${fill(row.path)}`, {
      method: row.method,
      headers,
      body,
      redirect: 'manual',
    });
    const text = await response.text();
    expect(response.status).toBe(row.status);
    const json = response.headers.get('content-type')?.startsWith('application/json');
    const expected = {
      'cache-control': 'no-cache, private',
      ...(json && { 'content-type': 'application/json' }),
      ...Object.fromEntries(
        Object.entries(row.answerHeaders ?? {}).map(([name, value]) => [name, value === null ? null : fill(value)]),
      ),
    };
    for (const [name, value] of Object.entries(expected))
      expect([name, response.headers.get(name)]).toEqual([name, value]);
    if (row.text !== undefined) expect(text).toBe(row.text);
    if (row.match !== undefined) expect(JSON.parse(text)).toMatchObject(JSON.parse(fill(JSON.stringify(row.match))));
    if (row.contains !== undefined) expect(text).toContain(row.contains);
  });
});

describe('quirks phpanalytics-v31: a bad key counts against the per-IP budget like a good one', () => {
  const clock = manualClock(1_790_000_100_000);
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ ...QUIRKS, throttlePerMinute: 60, throttleClock: clock.now });
  });
  afterAll(() => server.close());

  it('answers 60 × 401, then 429 with a pretty-printed body (items 8 and 11)', async () => {
    const statuses: number[] = [];
    for (let sent = 0; sent < 60; sent += 1) {
      statuses.push((await request(server.url, 'GET', '/api/v1/websites', { key: 'not-a-key-0123456789' })).status);
    }
    expect(statuses).toEqual(Array(60).fill(401));
    const refused = await request(server.url, 'GET', '/api/v1/websites', { key: server.key });
    expect(refused.status).toBe(429);
    expect(refused.text).toBe('{\n    "message": "Too Many Attempts."\n}');
    expect(refused.headers.get('content-type')).toBe('application/json');
  });
});
