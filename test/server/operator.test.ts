// The operator's view (issue 9): failed-authentication throttle per client IP, --trust-proxy,
// links and redirects never from the Host header, /health and /ready.
import { afterEach, describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/raw-http.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const wrong = (headers: Record<string, string> = {}) => ({ authorization: 'Bearer wrong-key-0123456789', ...headers });

describe('failed authentications', () => {
  it('are throttled per client IP (429 with Retry-After), even for a right key, apart from the API throttle', async () => {
    server = await startTestServer({ failedAuthPerMinute: 3, throttlePerMinute: 100, trustProxy: true });
    const url = server.url;
    const right = (ip: string) => ({ authorization: `Bearer ${server!.key}`, 'x-forwarded-for': ip });
    const attacker = '203.0.113.7';
    // Successful requests are not failures.
    for (let index = 0; index < 5; index += 1)
      expect((await rawGet(url, '/api/v1/websites', right(attacker))).status).toBe(200);
    for (let index = 0; index < 3; index += 1) {
      expect((await rawGet(url, '/api/v1/websites', wrong({ 'x-forwarded-for': attacker }))).status).toBe(401);
    }
    const refused = await rawGet(url, '/api/v1/websites', wrong({ 'x-forwarded-for': attacker }));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // A right guess now looks like a wrong one, and so does any spelling of the path.
    expect((await rawGet(url, '/api/v1/websites', right(attacker))).status).toBe(429);
    expect((await rawGet(url, '/%61pi/v1/websites', { 'x-forwarded-for': attacker })).status).toBe(429);
    // Another client is not affected, and the key's API throttle counted its successful requests only.
    const other = await rawGet(url, '/api/v1/websites', right('198.51.100.20'));
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('94');
  });

  it('ignore X-Forwarded-* without --trust-proxy: a spoofed header does not reset the count', async () => {
    const lines: string[] = [];
    server = await startTestServer({ failedAuthPerMinute: 2, log: (line) => lines.push(line) });
    const statuses: number[] = [];
    for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      const spoofed = wrong({ 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' });
      statuses.push((await rawGet(server.url, '/api/v1/websites', spoofed)).status);
    }
    expect(statuses).toEqual([401, 401, 429]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ip: '127.0.0.1', scheme: 'http' });
  });

  it('count per forwarded client IP with --trust-proxy, and the log shows the forwarded IP and scheme', async () => {
    const lines: string[] = [];
    server = await startTestServer({ failedAuthPerMinute: 2, trustProxy: true, log: (line) => lines.push(line) });
    const from = (ip: string) => wrong({ 'x-forwarded-for': `198.51.100.9, ${ip}`, 'x-forwarded-proto': 'https' });
    const statuses: number[] = [];
    for (const ip of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2']) {
      statuses.push((await rawGet(server.url, '/api/v1/websites', from(ip))).status);
    }
    expect(statuses).toEqual([401, 401, 429, 401]);
    // One trusted hop: the client is the entry the proxy appended, not one the client wrote.
    expect(JSON.parse(lines[0]!)).toMatchObject({ ip: '203.0.113.1', scheme: 'https', status: 401 });
    expect(JSON.parse(lines[3]!)).toMatchObject({ ip: '203.0.113.2' });
  });
});

/** One wrong key per forwarded address, in turn; the statuses. */
const sendAs = async (url: string, ips: string[]) => {
  const statuses: number[] = [];
  for (const ip of ips) statuses.push((await rawGet(url, '/api/v1/websites', wrong({ 'x-forwarded-for': ip }))).status);
  return statuses;
};

describe('trusted proxies by address (issue 23, item 10)', () => {
  it('takes X-Forwarded-For only from a named proxy: from another sender a forged one changes nothing', async () => {
    // The test connects from 127.0.0.1, which is not the named proxy.
    server = await startTestServer({ failedAuthPerMinute: 2, trustProxy: ['10.9.9.9/32', '::1'] });
    expect(await sendAs(server.url, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([401, 401, 429]);
  });

  it('from a named proxy (CIDR) the forwarded client is counted', async () => {
    server = await startTestServer({ failedAuthPerMinute: 2, trustProxy: ['127.0.0.0/8'] });
    expect(await sendAs(server.url, ['203.0.113.1', '203.0.113.2', '203.0.113.1', '203.0.113.1'])).toEqual([
      401, 401, 401, 429,
    ]);
  });

  it('believes the one entry the named proxy appended, even when that client is in the named range too', async () => {
    // A client on the proxy's own machine: its address is in the range, the entry before it is its own forgery.
    const lines: string[] = [];
    server = await startTestServer({ trustProxy: ['127.0.0.0/8'], log: (line) => lines.push(line) });
    await rawGet(server.url, '/api/v1/websites', wrong({ 'x-forwarded-for': '203.0.113.1, 127.0.0.5' }));
    expect(JSON.parse(lines[0]!)).toMatchObject({ ip: '127.0.0.5' });
  });

  it('refuses an address that is not one, in one line', async () => {
    await expect(startTestServer({ trustProxy: ['127.0.0.1/33'] })).rejects.toThrow(
      '--trust-proxy: "127.0.0.1/33" is not an IP address or CIDR range (like 127.0.0.1/32 or fd00::/8)',
    );
  });
});

describe('failed authentications over IPv6 (issue 23, item 11)', () => {
  it('are counted per /64: a client holds the whole /64', async () => {
    server = await startTestServer({ failedAuthPerMinute: 2, trustProxy: ['127.0.0.1'] });
    const ips = ['2001:db8:1:2::a', '2001:db8:1:2:ffff:ffff:ffff:b', '2001:db8:1:2::c', '2001:db8:1:3::a'];
    expect(await sendAs(server.url, ips)).toEqual([401, 401, 429, 401]);
  });
});

describe('links and redirects', () => {
  it('never come from the Host header in normal mode: they use the listening address', async () => {
    server = await startTestServer();
    const list = await rawGet(server.url, '/api/v1/websites', {
      host: 'evil.example',
      authorization: `Bearer ${server.key}`,
    });
    expect(list.text).not.toContain('evil.example');
    expect(list.body.links.first).toBe(`${server.url}/api/v1/websites?sort_by=id&sort=desc&per_page=10&page=1`);
  });

  it('come from the Host header in quirks mode without --public-url, as the deployed service builds them (issue 37)', async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31' });
    const list = await rawGet(server.url, '/api/v1/websites', {
      host: 'other.example:8443',
      authorization: `Bearer ${server.key}`,
    });
    expect(list.body.links.first).toBe(
      'http://other.example:8443/api/v1/websites?search_by=domain&sort_by=id&sort=desc&per_page=10&page=1',
    );
    const login = await rawGet(server.url, '/api/v1/websites', { host: 'other.example', accept: 'text/html' });
    expect(login.status).toBe(302);
    expect(login.headers.location).toBe('http://other.example/login');
    // A Host no URL can be built from: the listening address.
    const odd = await rawGet(server.url, '/api/v1/websites', { host: 'a b', accept: 'text/html' });
    expect(odd.headers.location).toBe(`${server.url}/login`);
  });

  it('use --public-url when set, path prefix included', async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31', publicUrl: 'https://sites.example.com/registry/' });
    const list = await rawGet(server.url, '/api/v1/websites', {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      authorization: `Bearer ${server.key}`,
    });
    expect(list.body.meta.path).toBe('https://sites.example.com/registry/api/v1/websites');
    const login = await rawGet(server.url, '/api/v1/websites', { host: 'evil.example', accept: 'text/html' });
    expect(login.headers.location).toBe('https://sites.example.com/registry/login');
  });

  it('refuses a public URL that is not an absolute http(s) URL', async () => {
    for (const publicUrl of ['sites.example.com', 'ftp://sites.example.com', 'https://sites.example.com/?a=1']) {
      await expect(startTestServer({ publicUrl })).rejects.toThrow(/public URL must be/);
    }
  });
});

describe('probes', () => {
  it('/health and /ready answer without a key and outside the API throttle', async () => {
    server = await startTestServer({ throttlePerMinute: 1, failedAuthPerMinute: 1 });
    await request(server.url, 'GET', '/api/v1/websites', { key: server.key });
    await request(server.url, 'GET', '/api/v1/websites');
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: server.key })).status).toBe(429);
    for (let index = 0; index < 3; index += 1) {
      const health = await request(server.url, 'GET', '/health');
      expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
      const ready = await request(server.url, 'GET', '/ready');
      expect([ready.status, ready.body]).toEqual([200, { status: 'ready' }]);
    }
  });

  it('/ready answers 503 when the database cannot be reached; /health still 200', async () => {
    server = await startTestServer();
    await server.server.store.close();
    const ready = await request(server.url, 'GET', '/ready');
    expect([ready.status, ready.body]).toEqual([503, { message: 'Database unavailable.', status: 503 }]);
    expect((await request(server.url, 'GET', '/health')).status).toBe(200);
  });
});
