/**
 * Issue 14, "targeted plans that cost one request": with --only naming exact
 * domains and prune off, plan and apply search for those sites instead of
 * listing the whole account. Requests are counted by the reference server's
 * own request log, on an account of 10,000 sites.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertWebsites } from '../helpers/stored-website.js';
import { config, workspace } from './apply-support.js';

const SITES = 10_000;

describe('a targeted plan on an account of 10,000 sites', () => {
  let server: TestServer;
  let requests: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ log: (line) => requests.push(line) });
    const domains = Array.from({ length: SITES - 3 }, (_, i) => `site-${i + 1}.example.com`);
    // Substring matches of the searched domain, which the exact filter must drop.
    domains.push('a.example.com', 'ba.example.com', 'a.example.com.au');
    await insertWebsites(server.server, server.key, domains);
  }, 60_000);
  afterAll(() => server.close());
  beforeEach(() => {
    requests = [];
  });

  const yaml = config({ 'a.example.com': '    email: true\n', 'new.example.org': '' });

  it('plan --only one exact domain costs 1 request, and sees only that site', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', yaml);
    const { code, out } = await ws.run(['plan', '--only', 'a.example.com', '--format', 'json']);
    expect(code).toBe(0);
    expect(requests).toHaveLength(1);
    expect(JSON.parse(requests[0] ?? '{}')).toMatchObject({ method: 'GET', path: '/api/v1/websites', status: 200 });
    const plan = JSON.parse(out);
    expect(
      plan.changes.map((change: { domain: string; action: string }) => `${change.action} ${change.domain}`),
    ).toEqual(['update a.example.com']);
    // One site read of 10,000: the account is not counted, so no coverage rather than a wrong 100%.
    expect(plan.coverage).toBeUndefined();
    const human = await ws.run(['plan', '--only', 'a.example.com']);
    expect(human.out).not.toContain('Coverage:');
  });

  it('without --only the same plan lists every page (100 requests) and counts the account', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', yaml);
    const { code, out } = await ws.run(['plan']);
    expect(code).toBe(0);
    // Every page, and the account (new.example.org is a create): 404 on a contract server.
    expect(requests).toHaveLength(SITES / 100 + 1);
    expect(out).toContain('Coverage: 1 of 10000 live websites managed (0%); 9999 unmanaged: 9999 not listed, kept.');
  });

  it('a glob in --only lists everything: a search cannot answer it', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', yaml);
    expect((await ws.run(['plan', '--only', 'a.example.co?'])).code).toBe(0);
    expect(requests).toHaveLength(SITES / 100);
  });

  it('with prune on for the named domain, the whole account is listed', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'a.example.com': '' }, 'prune: true\nlimits:\n  max_deletes: 100000\n'));
    expect((await ws.run(['plan', '--only', 'a.example.com'])).code).toBe(0);
    expect(requests).toHaveLength(SITES / 100);
  });

  it('apply --only: one search, the account, the write, one read back (no listing before or after)', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', yaml);
    const { code, out } = await ws.run(['apply', '--only', 'new.example.org', '--auto-approve']);
    expect(out).toContain('applied 1 of 1 change');
    expect(code).toBe(0);
    const lines = requests.map((line) => JSON.parse(line) as { method: string; path: string });
    // A plan with a create asks for the account's allowance once (the contract has no such route: 404, not checked).
    expect(lines.map((line) => `${line.method} ${line.path}`)).toEqual([
      'GET /api/v1/websites',
      'GET /api/v1/account',
      'POST /api/v1/websites',
      'GET /api/v1/websites/10001',
    ]);
    expect(out).toContain('(4 requests,');
  });

  it('a saved targeted plan applies with one read per touched site', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', yaml);
    expect((await ws.run(['plan', '--only', 'a.example.com', '--out', 'plan.json'])).code).toBe(0);
    requests = [];
    const { code, out } = await ws.run(['apply', 'plan.json']);
    expect(out).toContain('applied 1 of 1 change');
    expect(code).toBe(0);
    // Freshness: GET the site; the update; read back: GET the site. Never 100 pages.
    const lines = requests.map((line) => JSON.parse(line) as { method: string; path: string });
    expect(lines.map((line) => line.method)).toEqual(['GET', 'PUT', 'GET']);
  });
});
