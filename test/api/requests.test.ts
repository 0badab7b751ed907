import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { Secret } from '../../src/model/secret.js';
import { VERSION } from '../../src/version.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, fakeServer, type Setup, setup, TEST_CLIENT } from './support.js';

describe('what every request carries', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('Bearer key, Accept JSON and User-Agent on every request; form bodies on writes', async () => {
    const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const fake = await fakeServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const record = {
          id: 5,
          domain: 'a.example.com',
          privacy: 1,
          email: 0,
          exclude_bots: 1,
          favorite: false,
          password: false,
        };
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: record, status: 200 }));
      });
    });
    const client = createClient({
      url: `${fake.url}/analytics/`,
      apiKey: new Secret('header-key-1234'),
      ...TEST_CLIENT,
    });
    closers.push(() => client.close(), fake.close);
    await client.createWebsite(desired('a.example.com'));
    await client.updateWebsite(5, { settings: { email: false } });
    await client.getWebsite(5);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /analytics/api/v1/websites',
      'PUT /analytics/api/v1/websites/5',
      'GET /analytics/api/v1/websites/5',
    ]);
    for (const request of seen) {
      expect(request.headers).toMatchObject({
        authorization: 'Bearer header-key-1234',
        accept: 'application/json',
        'user-agent': `sitesync/${VERSION}`,
      });
    }
    expect(seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen[0]?.body).toBe('domain=a.example.com&privacy=1&email=0&exclude_bots=1');
    expect(seen[1]?.body).toBe('email=0');
    expect(seen[2]?.headers['content-type']).toBeUndefined();
  });
});

describe('deadlines and interruption', () => {
  let env: Setup;
  afterEach(() => env.close());

  it('an operation that never gets an answer ends at its deadline, as a network error', async () => {
    env = await setup('normal');
    const proxy = await startFaultProxy({ target: env.server.url, plan: () => 'stall' });
    const client = env.connect({
      url: proxy.url,
      timeouts: { connectMs: 1_000, headersMs: 5_000, bodyMs: 5_000, operationMs: 300 },
    });
    // The message names the 0.3 s deadline; without it the 5 s header timeout would speak instead.
    await expect(client.getWebsite(1)).rejects.toMatchObject({
      code: 'network',
      message: `GET /api/v1/websites/1 to ${proxy.url}: no complete answer within 0.3 s`,
    });
    await proxy.close();
  });

  it('an aborted signal stops the operation as interrupted', async () => {
    env = await setup('normal');
    const controller = new AbortController();
    // Aborted once the request has reached the proxy (which never answers it).
    const proxy = await startFaultProxy({
      target: env.server.url,
      plan: () => {
        controller.abort();
        return 'stall';
      },
    });
    const client = env.connect({ url: proxy.url });
    await expect(client.listWebsites({ signal: controller.signal })).rejects.toMatchObject({ code: 'interrupted' });
    await proxy.close();
  });

  it('debug lines trace each request and retry, with the key redacted', async () => {
    env = await setup('normal');
    const proxy = await startFaultProxy({
      target: env.server.url,
      plan: (request) => (request.index === 0 ? 'html-502' : 'pass'),
    });
    const lines: string[] = [];
    const client = env.connect({
      url: proxy.url,
      logger: (line) => lines.push(line),
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
    });
    await client.createWebsite(desired('log.example.com'));
    expect(lines.map((line) => line.replace(/\d+ ms/, 'N ms'))).toEqual([
      'POST /api/v1/websites → 502 (N ms)',
      'GET /api/v1/websites?search=log.example.com&search_by=domain&sort_by=id&sort=asc&per_page=100&page=1 → 200 (N ms)',
      'retry 2/3 in N ms (answered 502)',
      'POST /api/v1/websites → 201 (N ms)',
    ]);
    expect(lines.join('\n')).not.toContain(env.server.key);
    await proxy.close();
  });
});
