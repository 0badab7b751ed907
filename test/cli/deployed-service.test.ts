/**
 * Issue 24, client items found by running the deployed service's code:
 * sitesync against the reference server in quirks mode (phpanalytics-v31),
 * real HTTP, the sites written the way the deployed service accepts them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BoundRequest, client, request, startTestServer, type TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

describe('sitesync against the deployed service (quirks mode)', () => {
  let server: TestServer;
  let api: BoundRequest;
  let ws: Workspace;
  let requests: { method: string; path: string; status: number }[] = [];
  beforeEach(async () => {
    requests = [];
    server = await startTestServer({ quirks: 'phpanalytics-v31', log: (line) => requests.push(JSON.parse(line)) });
    api = client(server);
    ws = workspace(server, { SITESYNC_LOCKED_PW: 'locked-pw-2718281' });
  });
  afterEach(() => server.close());

  async function post(form: Record<string, string>): Promise<number> {
    const answer = await api('POST', '/api/v1/websites', { form });
    expect(answer.status).toBe(201);
    return answer.body.data.id as number;
  }

  it('email=5 is not on (reports go WHERE email = 1): the plan repairs it, then has nothing to do', async () => {
    const id = await post({ domain: 'reports.example', privacy: '0', email: '5' });
    ws.write('websites.yaml', config({ 'reports.example': '    privacy: public\n    email: true\n' }));
    const planned = await ws.run(['plan', '--format', 'json']);
    expect(JSON.parse(planned.out).changes).toEqual([
      expect.objectContaining({
        action: 'update',
        domain: 'reports.example',
        fields: [{ field: 'email', before: false, after: true }],
      }),
    ]);
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await api('GET', `/api/v1/websites/${id}`)).body.data.email).toBe(1);
    expect((await ws.run(['plan'])).out).toContain('No changes');
  });

  it('password → public: the plan notes that the service keeps the stored password', async () => {
    const id = await post({ domain: 'locked.example', privacy: '2', password: 'locked-pw-2718281' });
    ws.write('websites.yaml', config({ 'locked.example': '    privacy: public\n' }));
    const planned = await ws.run(['plan', '--format', 'json']);
    expect(JSON.parse(planned.out).notes).toContainEqual(
      expect.objectContaining({ kind: 'password_kept', domains: ['locked.example'] }),
    );
    const human = await ws.run(['plan']);
    expect(human.out).toContain(
      '1 website leaves privacy password: the service keeps the stored password (it still reads password: true)',
    );
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    // As the note said: public, and the password is still there.
    expect((await api('GET', `/api/v1/websites/${id}`)).body.data).toMatchObject({ privacy: 0, password: true });
    // Nothing left to change, so nothing more to say.
    expect((await ws.run(['plan'])).out).not.toContain('keeps the stored password');
    expect(ws.outputs.join('')).not.toContain('locked-pw-2718281');
  });

  it('an account with room for 5: a plan of 7 creates is refused up front, nothing sent', async () => {
    const limited = await server.createAccount({ websiteLimit: 5 });
    const own = workspace({ ...server, key: limited.key });
    const sites = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`site-${i + 1}.example`, '']));
    own.write('websites.yaml', config(sites));
    requests = [];
    const applied = await own.run(['apply', '--auto-approve']);
    expect(applied.err).toContain(
      "the account's plan allows 5 websites and the account holds 0: this plan creates 7, 2 more than there is room for; nothing was sent.",
    );
    expect(applied.code).toBe(1);
    expect(requests.map((line) => `${line.method} ${line.path} ${line.status}`)).toEqual([
      'GET /api/v1/websites 200',
      'GET /api/v1/account 200',
    ]);
    expect((await request(server.url, 'GET', '/api/v1/websites', { key: limited.key })).body.data).toEqual([]);
    // Five fit: applied, with the account read once.
    own.write('websites.yaml', config(Object.fromEntries(Object.entries(sites).slice(0, 5))));
    const fits = await own.run(['apply', '--auto-approve']);
    expect(fits.out).toContain('applied 5 of 5 changes');
    expect(fits.code).toBe(0);
  });

  it('a targeted plan counts the account with one small listing: full, so a create is refused', async () => {
    const limited = await server.createAccount({ websiteLimit: 2 });
    for (const domain of ['one.example', 'two.example']) {
      const form = { domain, privacy: '0' };
      expect((await request(server.url, 'POST', '/api/v1/websites', { key: limited.key, form })).status).toBe(201);
    }
    const own = workspace({ ...server, key: limited.key });
    own.write('websites.yaml', config({ 'three.example': '' }));
    requests = [];
    const applied = await own.run(['apply', '--only', 'three.example', '--auto-approve']);
    expect(applied.err).toContain("the account's plan allows 2 websites and the account holds 2: this plan creates 1");
    expect(applied.code).toBe(1);
    // The search, the account, the count (per_page=10: only meta.total is read); no POST.
    expect(requests.map((line) => `${line.method} ${line.path}`)).toEqual([
      'GET /api/v1/websites',
      'GET /api/v1/account',
      'GET /api/v1/websites',
    ]);
  });
});
