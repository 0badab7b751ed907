// `sitesync serve` and `sitesync serve accounts create`, in-process through main().
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { serveInProcess } from '../helpers/serve-in-process.js';
import { request } from '../helpers/server.js';
import { useTestDatabase } from '../helpers/test-database.js';

const serve = serveInProcess;

describe('sitesync serve', () => {
  const database = useTestDatabase('serve');
  let db: string;
  beforeEach(() => {
    db = database().db;
  });

  it('provisions SITESYNC_SERVE_KEYS, logs each request to stderr and stops with exit 0 on a signal', async () => {
    const running = await serve(['--db', db, '--throttle', '0'], {
      SITESYNC_SERVE_KEYS: 'cli-key-one-0123456789, cli-key-two-0123456789',
    });
    const created = await request(running.url, 'POST', '/api/v1/websites', {
      key: 'cli-key-two-0123456789',
      form: { domain: 'cli.example' },
    });
    expect(created.status).toBe(201);
    const refused = await request(running.url, 'GET', '/api/v1/websites', { key: 'cli-key-three-0123456789' });
    expect(refused.status).toBe(401);
    expect(await running.stop()).toBe(0);

    const log = running.io.err();
    expect(log).toContain('"method":"POST","path":"/api/v1/websites","status":201');
    expect(log).toContain('"status":401');
    expect(log).toContain('sitesync serve: stopped');
    expect(log).not.toContain('cli-key');
  });

  it('answers like phpAnalytics v31 with --quirks', async () => {
    const running = await serve(['--db', ':memory:', '--quirks', 'phpanalytics-v31'], {
      SITESYNC_SERVE_KEYS: 'quirks-key-0123456789',
    });
    const response = await request(running.url, 'GET', '/api/v1/websites', { accept: null });
    expect(response.status).toBe(302);
    expect(running.io.err()).toContain('(quirks: phpanalytics-v31)');
    expect(await running.stop()).toBe(0);
  });

  it('creates an account, prints its key once, and the server accepts it', async () => {
    const io = captureIo();
    expect(await main(['serve', 'accounts', 'create', 'alice', '--db', db, '--website-limit', '1'], io)).toBe(0);
    const key = io.out().trim();
    expect(key).toMatch(/^ss_[A-Za-z0-9_-]{43}$/);
    expect(io.err()).toContain('created account "alice"');
    expect(io.err()).not.toContain(key);

    const again = captureIo();
    expect(await main(['serve', 'accounts', 'create', 'alice', '--db', db], again)).toBe(1);
    expect(again.err()).toBe(`error: account "alice" already exists in ${db}\n`);

    const running = await serve(['--db', db]);
    expect(
      (await request(running.url, 'POST', '/api/v1/websites', { key, form: { domain: 'a.example' } })).status,
    ).toBe(201);
    const limited = await request(running.url, 'POST', '/api/v1/websites', { key, form: { domain: 'b.example' } });
    expect(limited.body.message).toEqual({ domain: ['You created too many websites.'] });
    expect(await running.stop()).toBe(0);
  });

  it('creates an account without API access (403)', async () => {
    const io = captureIo();
    expect(await main(['serve', 'accounts', 'create', 'bob', '--db', db, '--no-api-access'], io)).toBe(0);
    const running = await serve(['--db', db]);
    const response = await request(running.url, 'GET', '/api/v1/websites', { key: io.out().trim() });
    expect(response.status).toBe(403);
    expect(await running.stop()).toBe(0);
  });

  it.each([
    [['', '--db', 'DB'], 'error: the account name must not be empty\n'],
    [
      ['carol', '--db', ':memory:'],
      'error: accounts commands need a database file (--db <path>): in ":memory:" the change would be lost at once\n',
    ],
  ])('accounts create refuses %j', async (args, message) => {
    const io = captureIo();
    expect(await main(['serve', 'accounts', 'create', ...args.map((arg) => (arg === 'DB' ? db : arg))], io)).toBe(1);
    expect(io.err()).toBe(message);
    expect(io.out()).toBe('');
  });

  it('accounts create --help lists --db, which it reads from serve', async () => {
    const io = captureIo();
    expect(await main(['serve', 'accounts', 'create', '--help'], io)).toBe(0);
    expect(io.out()).toContain(
      '  --db <path|url>      SQLite database file or postgres:// URL to add the account to (default: SITESYNC_SERVE_DB, else "./sitesync.db"; not ":memory:")\n',
    );
  });

  it('accounts list --help lists --db too', async () => {
    const io = captureIo();
    expect(await main(['serve', 'accounts', 'list', '--help'], io)).toBe(0);
    expect(io.out()).toContain(
      '  --db <path|url>      SQLite database file or postgres:// URL (default: SITESYNC_SERVE_DB, else "./sitesync.db"; not ":memory:")\n',
    );
  });

  it.each([
    [['--port', '70000'], 'error: --port must be a whole number from 0 to 65535, not "70000"\n'],
    [['--throttle', '-1'], 'error: --throttle must be a whole number from 0 to 1000000, not "-1"\n'],
  ])('refuses %j with one readable line', async (args, message) => {
    const io = captureIo();
    expect(await main(['serve', '--db', ':memory:', ...args], io)).toBe(1);
    expect(io.err()).toBe(message);
  });

  it('reports a port in use as one line', async () => {
    const running = await serve(['--db', ':memory:']);
    const port = new URL(running.url).port;
    const io = captureIo();
    expect(await main(['serve', '--db', ':memory:', '--port', port], io)).toBe(1);
    expect(io.err()).toBe(`error: cannot serve on 127.0.0.1:${port} with database :memory:: EADDRINUSE\n`);
    expect(await running.stop()).toBe(0);
  });

  it('names the metrics address when --metrics-addr is the port in use (issue 33, item 12)', async () => {
    const running = await serve(['--db', ':memory:']);
    const taken = new URL(running.url).port;
    const io = captureIo();
    expect(await main(['serve', '--db', ':memory:', '--port', '0', '--metrics-addr', `127.0.0.1:${taken}`], io)).toBe(
      1,
    );
    expect(io.err()).toBe(`error: cannot serve metrics on 127.0.0.1:${taken} (--metrics-addr): EADDRINUSE\n`);
    expect(await running.stop()).toBe(0);
  });
});

describe('sitesync serve: operator options (issue 9)', () => {
  it('takes --public-url, --trust-proxy, --auth-failures, --request-timeout and --shutdown-grace', async () => {
    const running = await serve(
      [
        '--db',
        ':memory:',
        '--public-url',
        'https://sites.example.com/',
        '--trust-proxy',
        '--auth-failures',
        '1',
        '--request-timeout',
        '5',
        '--shutdown-grace',
        '1',
      ],
      { SITESYNC_SERVE_KEYS: 'operator-key-0123456789' },
    );
    const list = await request(running.url, 'GET', '/api/v1/websites', { key: 'operator-key-0123456789' });
    expect(list.body.links.first).toMatch(/^https:\/\/sites\.example\.com\/api\/v1\/websites\?/);
    expect(running.io.err()).toContain(', links to https://sites.example.com/,');
    const from = { 'x-forwarded-for': '203.0.113.5' };
    expect((await request(running.url, 'GET', '/api/v1/websites', { headers: from })).status).toBe(401);
    expect((await request(running.url, 'GET', '/api/v1/websites', { headers: from })).status).toBe(429);
    expect((await request(running.url, 'GET', '/health')).status).toBe(200);
    expect(await running.stop()).toBe(0);
    expect(running.io.err()).toContain('"ip":"203.0.113.5"');
  });

  it("takes --trust-proxy with the proxies' addresses: X-Forwarded-For from them only", async () => {
    const named = await serve([
      '--db',
      ':memory:',
      '--trust-proxy',
      '10.0.0.1/32,127.0.0.1/32',
      '--auth-failures',
      '1',
    ]);
    const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    expect((await request(named.url, 'GET', '/api/v1/websites', from('203.0.113.5'))).status).toBe(401);
    expect((await request(named.url, 'GET', '/api/v1/websites', from('203.0.113.6'))).status).toBe(401);
    expect(await named.stop()).toBe(0);
    const other = await serve(['--db', ':memory:', '--trust-proxy', '10.0.0.1/32', '--auth-failures', '1']);
    expect((await request(other.url, 'GET', '/api/v1/websites', from('203.0.113.5'))).status).toBe(401);
    expect((await request(other.url, 'GET', '/api/v1/websites', from('203.0.113.6'))).status).toBe(429);
    expect(await other.stop()).toBe(0);
  });

  it.each([
    [['--public-url', 'sites.example.com'], /^error: --public-url: the public URL must be an absolute http\(s\) URL/],
    [['--request-timeout', '0'], /^error: --request-timeout must be a whole number from 1 to 3600, not "0"/],
    [['--shutdown-grace', 'soon'], /^error: --shutdown-grace must be a whole number/],
    [['--trust-proxy', '127.0.0.1/32,proxy.internal'], /^error: --trust-proxy: "proxy.internal" is not an IP address/],
  ])('refuses %j with a one-line error', async (args, message) => {
    const io = captureIo();
    expect(await main(['serve', '--port', '0', '--db', ':memory:', ...args], io)).not.toBe(0);
    expect(io.err()).toMatch(message);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });
});
