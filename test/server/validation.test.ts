// Domain normalisation and validation, uniqueness across accounts, the website
// limit, passwords, favorited_at, trimming and empty fields, in both modes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoundRequest, client, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(['normal', 'phpanalytics-v31'] as const)('validation (%s)', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let server: TestServer;
  let api: BoundRequest;
  const create = (form: Record<string, string>) => api('POST', '/api/v1/websites', { form });

  beforeAll(async () => {
    server = await startTestServer(quirks ? { quirks: mode } : {});
    api = client(server);
  });
  afterAll(() => server.close());

  it.each([
    ['HTTPS://WWW.Shop.Example', 'shop.example'],
    ['http://blog.example', 'blog.example'],
    ['  www.padded.example  ', 'padded.example'],
    ['www.www.double.example', 'double.example'], // every www. (PHP str_replace)
    ['192.168.10.20', '192.168.10.20'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ])('normalises %j to %j', async (sent, stored) => {
    const response = await create({ domain: sent });
    expect(response.status).toBe(201);
    expect(response.body.data.domain).toBe(stored);
  });

  it.each([
    'localhost',
    'example.com/path',
    'example.com:8080',
    // The real service stores these two (quirks-v31.test.ts).
    ...(quirks ? [] : ['exa mple.com', '-bad.example']),
    'bad-.example',
    'example.123',
    `${'a'.repeat(64)}.example`,
  ])('refuses the domain %j', async (domain) => {
    const response = await create({ domain });
    expect(response.status).toBe(422);
    const message = mode === 'normal' ? 'The domain must be a valid domain name.' : 'Invalid domain name.';
    expect(response.body).toEqual({ message: { domain: [message] }, status: 422 });
  });

  it('refuses a domain longer than 255 characters', async () => {
    const domain = `${Array.from({ length: 5 }, () => 'a'.repeat(60)).join('.')}.example`;
    const response = await create({ domain });
    // The real service runs the domain rule too (Laravel reports every failing rule).
    const messages = [
      'The domain field must not be greater than 255 characters.',
      ...(quirks ? ['Invalid domain name.'] : []),
    ];
    expect(response.body).toEqual({ message: { domain: messages }, status: 422 });
  });

  it('requires a domain; an empty one reads as missing', async () => {
    for (const form of [{}, { domain: '' }, { domain: '   ' }] as Record<string, string>[]) {
      const response = await create(form);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ message: { domain: ['The domain field is required.'] }, status: 422 });
    }
  });

  it('keeps domains unique across accounts, after normalisation', async () => {
    expect((await create({ domain: 'taken.example' })).status).toBe(201);
    const other = await server.createAccount();
    for (const domain of ['taken.example', 'https://www.TAKEN.example']) {
      const response = await api('POST', '/api/v1/websites', { key: other.key, form: { domain } });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({ message: { domain: ['The domain has already been taken.'] }, status: 422 });
    }
  });

  it('applies the account website limit on the domain field', async () => {
    const limited = await server.createAccount({ websiteLimit: 1 });
    const limitedApi = client({ url: server.url, key: limited.key });
    expect((await limitedApi('POST', '/api/v1/websites', { form: { domain: 'limit-one.example' } })).status).toBe(201);
    const response = await limitedApi('POST', '/api/v1/websites', { form: { domain: 'limit-two.example' } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ message: { domain: ['You created too many websites.'] }, status: 422 });
  });

  it('requires a password for privacy=2 on store', async () => {
    for (const form of [
      { domain: 'nopw.example', privacy: '2' },
      { domain: 'nopw.example', privacy: '2', password: '' },
    ] as Record<string, string>[]) {
      const response = await create(form);
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        message: {
          password: [
            mode === 'normal' ? 'The password field is required when privacy is 2.' : 'The password field is required.',
          ],
        },
        status: 422,
      });
    }
  });

  it('accepts passwords of 1..128 characters, untrimmed, and refuses 129', async () => {
    expect((await create({ domain: 'pw1.example', privacy: '2', password: ' ' })).status).toBe(201);
    expect((await create({ domain: 'pw128.example', privacy: '2', password: 'p'.repeat(128) })).status).toBe(201);
    const response = await create({ domain: 'pw129.example', privacy: '2', password: 'p'.repeat(129) });
    expect(response.body).toEqual({
      message: { password: ['The password field must not be greater than 128 characters.'] },
      status: 422,
    });
  });

  it('reports every invalid field at once', async () => {
    const response = await create({ domain: 'many.example', privacy: 'public', exclude_bots: '2' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      message: {
        // Laravel measures "public" (6 characters) against between:0,2 too.
        privacy: [
          'The privacy field must be an integer.',
          ...(quirks ? ['The privacy field must be between 0 and 2.'] : []),
        ],
        exclude_bots: ['The exclude bots field must be between 0 and 1.'],
      },
      status: 422,
    });
  });

  it(quirks ? 'accepts any integer email (real)' : 'accepts email 0 or 1 only', async () => {
    const response = await create({ domain: 'email.example', email: '5' });
    if (quirks) expect(response.status).toBe(201);
    else
      expect(response.body).toEqual({ message: { email: ['The email field must be between 0 and 1.'] }, status: 422 });
  });

  it(quirks ? 'ignores favorited_at on store' : 'validates favorited_at as Y-m-dTH:i:s', async () => {
    for (const value of ['2024-05-01 10:20:30', '2024-02-30T10:20:30', 'yesterday']) {
      const response = await create({ domain: 'fav-format.example', favorited_at: value });
      if (quirks) {
        expect(response.status).toBe(201);
        await api('DELETE', `/api/v1/websites/${response.body.data.id}`);
      } else {
        expect(response.body).toEqual({
          message: { favorited_at: ['The favorited at field must match the format Y-m-dTH:i:s.'] },
          status: 422,
        });
      }
    }
  });

  it('trims strings, reads empty fields as null, and ignores unknown fields', async () => {
    const response = await create({
      domain: 'trim.example',
      privacy: ' 0 ',
      exclude_ips: '  10.0.0.1  ',
      exclude_params: '',
      exclude_bots: '',
      user_id: '99',
    });
    expect(response.status).toBe(201);
    const shown = await api('GET', `/api/v1/websites/${response.body.data.id}`);
    expect(shown.body.data).toMatchObject({
      privacy: 0,
      exclude_ips: '10.0.0.1',
      // Real: an empty exclude_bots stores NULL (bots not excluded); we apply the default.
      exclude_bots: quirks ? null : 1,
    });
    if (!quirks) expect(shown.body.data.exclude_params).toBeNull();
  });

  it('on update: privacy 2 needs a password unless one is stored (real: never checked)', async () => {
    const created = await create({ domain: 'to-private.example', privacy: '0' });
    const id = created.body.data.id;
    const response = await api('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '2' } });
    if (quirks) {
      expect(response.status).toBe(200);
    } else {
      expect(response.body).toEqual({
        message: { password: ['The password field is required when privacy is 2.'] },
        status: 422,
      });
      const withPassword = await api('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '2', password: 'pw' } });
      expect(withPassword.body.data).toMatchObject({ privacy: 2, password: true });
      // A stored password is enough afterwards, and survives a change to privacy 0.
      expect((await api('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '0' } })).body.data.password).toBe(true);
      expect((await api('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '2' } })).status).toBe(200);
    }
  });

  it('on update: privacy cannot be emptied', async () => {
    const created = await create({ domain: 'empty-privacy.example' });
    const response = await api('PUT', `/api/v1/websites/${created.body.data.id}`, { form: { privacy: '' } });
    expect(response.body).toEqual({ message: { privacy: ['The privacy field is required.'] }, status: 422 });
  });

  it(quirks ? 'echoes JSON values as sent on update' : 'refuses a favorite that is not a boolean', async () => {
    const created = await create({ domain: 'json-update.example' });
    const response = await api('PATCH', `/api/v1/websites/${created.body.data.id}`, {
      json: { privacy: 0, favorite: 'maybe' },
    });
    if (quirks) expect(response.body.data).toMatchObject({ privacy: 0, favorite: true });
    else
      expect(response.body).toEqual({
        message: { favorite: ['The favorite field must be true or false.'] },
        status: 422,
      });
  });
});
