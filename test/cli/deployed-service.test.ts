/**
 * Issue 24, client items found by running the deployed service's code:
 * sitesync against the reference server in quirks mode (phpanalytics-v31),
 * real HTTP, the sites written the way the deployed service accepts them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BoundRequest, client, startTestServer, type TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

describe('sitesync against the deployed service (quirks mode)', () => {
  let server: TestServer;
  let api: BoundRequest;
  let ws: Workspace;
  beforeEach(async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31' });
    api = client(server);
    ws = workspace(server, { LOCKED_PW: 'locked-pw-2718281' });
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
});
