// Input edges (issue 9): huge page numbers, passwords counted in characters, form charsets,
// favorited_at years 0000-0099.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(['normal', 'phpanalytics-v31'] as const)('input edges (%s)', (mode) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(mode === 'normal' ? {} : { quirks: mode });
    await insertWebsite(server, `paged-${mode}.example`);
  });
  afterAll(() => server.close());

  it.each(['1000000000', '99999999999999999999', '9'.repeat(400)])(
    'answers page=%s with an empty page, not page 1',
    async (page) => {
      const response = await client(server)('GET', `/api/v1/websites?page=${page}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
      expect(response.body.meta.current_page).toBeGreaterThan(1);
      expect(response.body.meta).toMatchObject({ from: null, to: null, total: 1, last_page: 1 });
    },
  );

  it('counts password length in characters, not UTF-16 units', async () => {
    const api = client(server);
    const fits = await api('POST', '/api/v1/websites', {
      form: { domain: `emoji-${mode}.example`, privacy: '2', password: '😀'.repeat(128) },
    });
    expect(fits.status).toBe(201);
    const tooLong = await api('POST', '/api/v1/websites', {
      form: { domain: `emoji-long-${mode}.example`, privacy: '2', password: '😀'.repeat(129) },
    });
    expect(tooLong.body).toEqual({
      message: { password: ['The password field must not be greater than 128 characters.'] },
      status: 422,
    });
  });

  // Issue 33, item 9: SQLite stored a NUL, PostgreSQL answered 500; a lone surrogate was stored
  // mangled, differently by each. Both backends now refuse them in every text field with one 422.
  const unstorable = (field: string) => ({
    message: {
      [field]: [`The ${field.replace(/_/g, ' ')} field must not contain NUL characters or unpaired surrogates.`],
    },
    status: 422,
  });

  it.each([
    ['JSON', 'exclude_ips', { json: '{"domain":"DOMAIN","exclude_ips":"1.2.3.4\\u0000"}' }],
    ['JSON', 'exclude_params', { json: '{"domain":"DOMAIN","exclude_params":"\\ud800x"}' }],
    ['JSON', 'exclude_params', { json: '{"domain":"DOMAIN","exclude_params":"x\\udc00"}' }],
    ['JSON', 'password', { json: '{"domain":"DOMAIN","privacy":2,"password":"pass\\u0000word-0123"}' }],
    ['form', 'exclude_ips', { form: 'domain=DOMAIN&exclude_ips=a%00b' }],
    ['form', 'exclude_params', { form: 'domain=DOMAIN&exclude_params=%00' }],
  ] as const)(
    'refuses a NUL or a lone surrogate on create (%s %s) with 422, storing nothing',
    async (_kind, field, body) => {
      const domain = `nul-${field}-${mode}.example`.replace(/_/g, '-');
      const sent =
        'json' in body ? { json: body.json.replace('DOMAIN', domain) } : { form: body.form.replace('DOMAIN', domain) };
      const response = await client(server)('POST', '/api/v1/websites', sent);
      expect(response.body).toEqual(unstorable(field));
      expect(response.status).toBe(422);
      const listed = await client(server)('GET', `/api/v1/websites?search=${domain}`);
      expect(listed.body.data).toEqual([]);
    },
  );

  it.each(['PATCH', 'PUT'])('refuses a NUL or a lone surrogate on %s with 422, changing nothing', async (method) => {
    const api = client(server);
    const id = await insertWebsite(server, `nul-update-${method}-${mode}.example`.toLowerCase(), {
      values: { excludeIps: '10.0.0.1' },
    });
    const answers = [
      await api(method, `/api/v1/websites/${id}`, { json: '{"exclude_ips":"1.2.3.4\\u0000"}' }),
      await api(method, `/api/v1/websites/${id}`, { form: 'exclude_ips=1.2.3.4%00' }),
      await api(method, `/api/v1/websites/${id}`, { json: '{"exclude_ips":"\\ud800x"}' }),
    ];
    for (const answer of answers)
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 422, body: unstorable('exclude_ips') });
    expect((await api('GET', `/api/v1/websites/${id}`)).body.data.exclude_ips).toBe('10.0.0.1');
  });

  it('refuses a NUL in the domain with 422, and a search for one finds nothing (never 500)', async () => {
    const api = client(server);
    const created = await api('POST', '/api/v1/websites', { json: `{"domain":"nul\\u0000${mode}.example"}` });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.message)).toEqual(['domain']);
    for (const search of ['a%00b', '%00', '%ED%A0%80']) {
      const listed = await api('GET', `/api/v1/websites?search=${search}`);
      expect({ search, status: listed.status, data: listed.body.data }).toEqual({ search, status: 200, data: [] });
    }
  });
});

describe('form charsets and favorited_at years', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const post = (contentType: string, body: string) =>
    fetch(`${server.url}/api/v1/websites`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, accept: 'application/json', 'content-type': contentType },
      body,
    });

  it.each([
    ['application/x-www-form-urlencoded; charset=iso-8859-1', 'latin1.example', 'caf%E9'],
    ['application/x-www-form-urlencoded; charset="windows-1252"', 'cp1252.example', '%80uro'],
    ['application/x-www-form-urlencoded; charset=UTF-8', 'utf8.example', 'caf%C3%A9'],
    ['application/x-www-form-urlencoded', 'default.example', 'caf%C3%A9'],
  ])('decodes a form in its declared charset (%s)', async (type, domain, escaped) => {
    const response = await post(type, `domain=${domain}&exclude_params=${escaped}`);
    expect(response.status).toBe(201);
    const expected = escaped === '%80uro' ? '€uro' : 'café';
    expect(((await response.json()) as { data: { exclude_params: string } }).data.exclude_params).toBe(expected);
  });

  it('refuses an unknown charset with 415 and bytes invalid in the charset with 400, storing nothing', async () => {
    const unknown = await post('application/x-www-form-urlencoded; charset=x-klingon', 'domain=k.example');
    expect(unknown.status).toBe(415);
    expect(await unknown.json()).toEqual({ message: 'Unsupported Media Type.', status: 415 });
    const invalid = await post(
      'application/x-www-form-urlencoded; charset=utf-8',
      'domain=bad.example&exclude_params=caf%E9',
    );
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ message: 'Malformed form body.', status: 400 });
    const json = await post('application/json; charset=iso-8859-1', '{"domain":"j.example"}');
    expect(json.status).toBe(415);
    const list = await client(server)('GET', '/api/v1/websites?search=bad.example');
    expect(list.body.data).toEqual([]);
  });

  it.each(['0000-02-29T00:00:00', '0055-06-01T12:30:00', '0099-12-31T23:59:59'])(
    'accepts favorited_at %s as the pattern allows, and reads it back unchanged',
    async (favoritedAt) => {
      const response = await client(server)('POST', '/api/v1/websites', {
        form: { domain: `year-${favoritedAt.slice(0, 4)}.example`, favorited_at: favoritedAt },
      });
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({ favorite: true, favorited_at: favoritedAt });
    },
  );

  it.each(['0001-02-29T00:00:00', '0055-13-01T00:00:00', '0099-04-31T00:00:00'])(
    'refuses an impossible early date %s',
    async (favoritedAt) => {
      const response = await client(server)('POST', '/api/v1/websites', {
        form: { domain: 'impossible.example', favorited_at: favoritedAt },
      });
      expect(response.body).toEqual({
        message: { favorited_at: ['The favorited at field must match the format Y-m-dTH:i:s.'] },
        status: 422,
      });
    },
  );
});
