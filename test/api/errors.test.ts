import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { Secret } from '../../src/model/secret.js';
import { type Fault, startFaultProxy } from '../helpers/fault-proxy.js';
import { insertWebsite } from '../helpers/server.js';
import { desired, fakeServer, MODES, type Setup, setup, TEST_CLIENT } from './support.js';

describe.each(MODES)('errors from the %s server', (mode) => {
  let env: Setup;
  afterEach(() => env.close());

  it('auth: a rejected key, named by origin, never printed', async () => {
    env = await setup(mode);
    const lines: string[] = [];
    const client = env.connect({ apiKey: new Secret('wrong-key-123456'), logger: (line) => lines.push(line) });
    const error = await client.listWebsites().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'auth', message: `the API key was rejected by ${env.server.url} (401)` });
    expect(JSON.stringify([error, (error as Error).message, lines])).not.toContain('wrong-key-123456');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^GET \/api\/v1\/websites\?sort_by=id&sort=asc&per_page=100&page=1 → 401 \(\d+ ms\)$/);
  });

  it("forbidden: the account's plan has no API access", async () => {
    env = await setup(mode);
    await env.server.setAccount(env.server.accountId, { apiAccess: false });
    await expect(env.client.getWebsite(1)).rejects.toMatchObject({
      code: 'forbidden',
      message: "GET /api/v1/websites/1 → 403: this account's plan has no API access",
      details: { status: 403, method: 'GET', path: '/api/v1/websites/1' },
    });
  });

  it('validation: a domain taken by another account says so, with the field message', async () => {
    env = await setup(mode);
    await insertWebsite(env.server, 'taken.example.com', { accountId: (await env.server.createAccount()).id });
    await expect(env.client.createWebsite(desired('taken.example.com'))).rejects.toMatchObject({
      code: 'validation',
      message:
        'POST /api/v1/websites → 422: domain: The domain has already been taken. (domains are unique across all accounts, so another account may own it)',
      details: { status: 422, fields: { domain: ['The domain has already been taken.'] } },
    });
  });

  it('validation: every field message, and no note for a domain that cannot be valid', async () => {
    env = await setup(mode);
    const error = await env.client
      .createWebsite(desired('not a domain', { privacy: 'password' }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'validation', details: { status: 422 } });
    const fields = (error as { details: { fields: Record<string, string[]> } }).details.fields;
    expect(Object.keys(fields).sort()).toEqual(['domain', 'password']);
    expect((error as Error).message).not.toContain('another account');
  });

  it('validation: the website limit of the plan', async () => {
    env = await setup(mode, { websiteLimit: 1 });
    await env.client.createWebsite(desired('one.example.com'));
    const error = await env.client.createWebsite(desired('two.example.com')).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'validation',
      details: { fields: { domain: ['You created too many websites.'] } },
    });
    expect((error as Error).message).not.toContain('another account');
  });

  it('validation: a domain taken by a site of this account names that site, not another account', async () => {
    env = await setup(mode);
    const ownId = await insertWebsite(env.server, 'mine.example.com');
    const error = await env.client.createWebsite(desired('mine.example.com')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'validation' });
    expect((error as Error).message).not.toContain('another account');
    expect((error as Error).message).toContain(`website ${ownId} of this account already has this domain`);
  });

  it('not_found: a missing site reads as undefined, and an update of it fails as not_found', async () => {
    env = await setup(mode);
    expect(await env.client.getWebsite(42)).toBeUndefined();
    await expect(env.client.updateWebsite(42, { settings: { email: true } })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('errors the reference server cannot produce', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function clientFor(handler: Parameters<typeof fakeServer>[0]) {
    const fake = await fakeServer(handler);
    const client = createClient({ url: fake.url, apiKey: new Secret('fake-key-abcdef'), ...TEST_CLIENT });
    closers.push(() => client.close(), fake.close);
    return { client, url: fake.url };
  }

  /** A client that reaches the reference server only through a proxy that always injects `fault`. */
  async function clientBehind(fault: Fault, retryAfterSeconds = 0) {
    const env = await setup('normal');
    const proxy = await startFaultProxy({ target: env.server.url, plan: () => fault, retryAfterSeconds });
    closers.push(env.close, proxy.close);
    return env.connect({ url: proxy.url });
  }

  it('auth: a redirect to a login page', async () => {
    const { client, url } = await clientFor((_req, res) => res.writeHead(302, { location: '/login' }).end());
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'auth',
      message: `the API key was rejected by ${url} (302: a redirect to the login page ${url}/login)`,
    });
  });

  it('protocol: a permanent redirect says so and shows where to (issue 16 item 17)', async () => {
    for (const status of [301, 308]) {
      const { client, url } = await clientFor((_req, res) =>
        res.writeHead(status, { location: 'https://stats.example.com/api/v1/websites' }).end(),
      );
      const error = await client.listWebsites().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'protocol' });
      expect((error as Error).message).toContain(
        `→ ${status}: the server redirects to https://stats.example.com/api/v1/websites`,
      );
      expect((error as Error).message).not.toContain('rejected');
      expect(url).toMatch(/^http/);
    }
  });

  it('protocol: a redirect to a host whose name merely contains "auth" is not a rejected key', async () => {
    const { client } = await clientFor((_req, res) =>
      res.writeHead(301, { location: 'https://auth.example.com/api/v1/websites' }).end(),
    );
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'protocol',
      message: expect.stringContaining('→ 301: the server redirects to https://auth.example.com/api/v1/websites'),
    });
  });

  it('auth: an HTML login page answered with 200', async () => {
    const { client } = await clientFor((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<form><input name="email"><input type="password" name="password"></form>'),
    );
    await expect(client.getWebsite(1)).rejects.toMatchObject({ code: 'auth' });
  });

  it.each([
    [
      'an HTML page',
      'text/html',
      '<html><body>Welcome</body></html>',
      'GET /api/v1/websites/1 → 200: expected JSON, got an HTML page',
    ],
    [
      'truncated JSON',
      'application/json',
      '{"data": {"id": 1, "dom',
      'GET /api/v1/websites/1 → 200: expected JSON, got invalid or truncated JSON',
    ],
    [
      'a record without id',
      'application/json',
      '{"data": {"domain": "a.example.com"}}',
      'GET /api/v1/websites/1: a website record has no valid id (none)',
    ],
  ])('protocol: %s', async (_name, type, body, message) => {
    const { client } = await clientFor((_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
    await expect(client.getWebsite(1)).rejects.toMatchObject({ code: 'protocol', message });
  });

  it('a setting nobody can read leaves that setting unknown, with one notice, not a protocol error', async () => {
    const lines: string[] = [];
    const server = await fakeServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"data": {"id": 1, "domain": "a.example.com", "privacy": "secret", "email": 1}}'),
    );
    const client = createClient({
      url: server.url,
      apiKey: new Secret('fake-key-abcdef'),
      ...TEST_CLIENT,
      notice: (line) => lines.push(line),
    });
    closers.push(() => client.close(), server.close);
    expect(await client.getWebsite(1)).toMatchObject({ id: 1, domain: 'a.example.com', settings: { email: true } });
    expect((await client.getWebsite(1))?.settings).toEqual({ email: true });
    expect(lines).toEqual([
      'website a.example.com (1): privacy "secret" cannot be read; it is not compared (the rest of the listing is used)',
    ]);
  });

  it('protocol: a listing without a data array', async () => {
    const { client } = await clientFor((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items": []}'),
    );
    await expect(client.listWebsites()).rejects.toMatchObject({ code: 'protocol' });
  });

  it('network: connection refused, after bounded retries', async () => {
    const fake = await fakeServer(() => {});
    await fake.close(); // the port is now closed
    const client = createClient({ url: fake.url, apiKey: new Secret('fake-key-abcdef'), ...TEST_CLIENT });
    closers.push(() => client.close());
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'network',
      message: expect.stringContaining('connection refused'),
    });
    expect(client.stats).toEqual({ requests: 4, retries: 3, throttled: 0 });
  });

  it('server: a 503 page that does not go away, after bounded retries', async () => {
    const client = await clientBehind('html-503');
    await expect(client.listWebsites()).rejects.toMatchObject({
      code: 'server',
      message: 'GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 → 503: an HTML error page',
    });
    expect(client.stats).toEqual({ requests: 4, retries: 3, throttled: 0 });
  });

  it('rate_limited: 429 after 429, after bounded retries', async () => {
    const client = await clientBehind('throttle');
    await expect(client.getWebsite(1)).rejects.toMatchObject({
      code: 'rate_limited',
      details: { status: 429, attempts: 4 },
    });
    expect(client.stats).toEqual({ requests: 4, retries: 3, throttled: 4 });
  });

  it('rate_limited at once when Retry-After is longer than the operation may take', async () => {
    const client = await clientBehind('throttle', 600);
    await expect(client.getWebsite(1)).rejects.toMatchObject({ code: 'rate_limited', details: { attempts: 1 } });
    expect(client.stats).toEqual({ requests: 1, retries: 0, throttled: 1 });
  });
});
