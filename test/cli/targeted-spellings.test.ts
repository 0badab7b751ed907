/**
 * Issue 24 item 1: the deployed service stores a domain as sent (Unicode, a
 * trailing dot, `www.` inside), so a targeted listing (`--only` one exact
 * domain) must find a site under every spelling it may have been stored in:
 * a targeted plan never plans a create that a full plan would not. Against
 * the reference server in quirks mode (phpanalytics-v31), requests counted by
 * its request log.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { Secret } from '../../src/model/secret.js';
import { client, insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { config, workspace } from './apply-support.js';

interface Logged {
  method: string;
  path: string;
  status: number;
}

describe('apply --only finds a site under the spelling the service stored', () => {
  let server: TestServer;
  let requests: Logged[] = [];
  beforeEach(async () => {
    requests = [];
    server = await startTestServer({ quirks: 'phpanalytics-v31', log: (line) => requests.push(JSON.parse(line)) });
  });
  afterEach(() => server.close());

  async function stored(domain: string): Promise<number> {
    const answer = await client(server)('POST', '/api/v1/websites', { form: { domain, privacy: '0' } });
    expect(answer.status).toBe(201);
    return answer.body.data.id as number;
  }

  const writes = () => requests.filter((line) => line.method !== 'GET');

  it.each([
    ['Unicode, named in punycode', 'bücher2.example', 'xn--bcher2-3ya.example'],
    ['punycode, named in Unicode', 'xn--bcher3-3ya.example', 'bücher3.example'],
    ['a trailing dot', 'dot.example.', 'dot.example'],
  ])('%s: no second site, and the plan has nothing to do', async (_, storedAs, named) => {
    await stored(storedAs);
    const ws = workspace(server);
    ws.write('websites.yaml', config({ [named]: '    privacy: public\n' }));
    requests = [];
    const { code, out } = await ws.run(['apply', '--only', named, '--auto-approve']);
    expect(out).toContain('No changes');
    expect(code).toBe(0);
    expect(writes()).toEqual([]);
    // The searches: the ASCII and the Unicode spelling of an IDN, one for a plain domain.
    expect(requests.length).toBeLessThanOrEqual(2);
    const listed = await client(server)('GET', '/api/v1/websites?per_page=100');
    expect(listed.body.data).toHaveLength(1);
  });

  it('a site held in capitals with a leading www. (a service that does not normalise): found by its search', async () => {
    await insertWebsite(server, 'WWW.Case.Example');
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'case.example': '' }));
    requests = [];
    const { code, out } = await ws.run(['apply', '--only', 'case.example', '--auto-approve']);
    expect(out).toContain('No changes');
    expect(code).toBe(0);
    expect(requests.map((line) => line.method)).toEqual(['GET']);
  });

  it('an IDN stored under no searched spelling: the whole account is listed before a create', async () => {
    // Half punycode, half Unicode: neither search finds it; the full listing does, as a full plan would.
    await stored('xn--caf-dma.bücher5.example');
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'café.bücher5.example': '    privacy: public\n' }));
    requests = [];
    const { code, out } = await ws.run(['apply', '--only', 'café.bücher5.example', '--auto-approve']);
    expect(out).toContain('No changes');
    expect(code).toBe(0);
    // Two searches, then one page of the whole account.
    expect(requests.map((line) => line.method)).toEqual(['GET', 'GET', 'GET']);
  });

  it('a new IDN is created once, after the same three reads and the account', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'bücher6.example': '    privacy: public\n' }));
    const { code, out } = await ws.run(['apply', '--only', 'xn--bcher6-3ya.example', '--auto-approve']);
    expect(out).toContain('applied 1 of 1 change');
    expect(code).toBe(0);
    expect(requests.map((line) => `${line.method} ${line.path}`)).toEqual([
      'GET /api/v1/websites',
      'GET /api/v1/websites',
      'GET /api/v1/websites',
      'GET /api/v1/account',
      'POST /api/v1/websites',
      'GET /api/v1/websites/1',
    ]);
  });

  it('plan --only and --skip with the spelling the service stored (a trailing dot) match the site (issue 37)', async () => {
    await stored('trail.example.');
    await stored('other.example');
    const ws = workspace(server);
    ws.write(
      'websites.yaml',
      config({ 'trail.example': '    privacy: public\n', 'other.example': '    privacy: public\n' }),
    );
    const only = await ws.run(['plan', '--only', 'trail.example.']);
    expect(only.err).not.toContain('matches no website');
    expect(only.out).toContain('No changes');
    expect(only.code).toBe(0);
    // Skipped under its stored spelling: a change to it is not planned, the other site's is.
    ws.write(
      'websites.yaml',
      config({ 'trail.example': '    privacy: private\n', 'other.example': '    privacy: private\n' }),
    );
    const skip = await ws.run(['plan', '--skip', 'TRAIL.example.', '--detailed-exitcode']);
    expect(skip.code).toBe(2);
    expect(skip.out).toContain('other.example');
    expect(skip.out).not.toContain('trail.example');
  });

  it('export --only and the create look-up find a site stored in Unicode by its punycode form', async () => {
    await stored('bücher7.example');
    const ws = workspace(server);
    const exported = await ws.run(['export', '--only', 'xn--bcher7-3ya.example']);
    expect(exported.out).toContain('  - domain: xn--bcher7-3ya.example\n');
    const api = createClient({ url: server.url, apiKey: new Secret(server.key), rateLimitPerMinute: 0 });
    try {
      expect((await api.findWebsite('xn--bcher7-3ya.example'))?.domain).toBe('bücher7.example');
    } finally {
      await api.close();
    }
  });
});
