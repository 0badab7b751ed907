/**
 * `sitesync plan` and passwords and scope, end to end against the reference
 * server over real HTTP: an ignored password is still sent when the site would be
 * refused without one, prune with no `manage` scope is a plan note, and a
 * plan that lacks a password variable warns (apply needs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { config, workspace } from './apply-support.js';

const LOCKED = config({
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
  'locked.example': '    privacy: password\n    password: ${SITESYNC_LOCKED_PW}\n    ignore_changes: [password]\n',
});

describe('sitesync plan: passwords and the prune scope', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('sends the configured password when privacy becomes password on a site without one, even when ignored', async () => {
    const api = client(server);
    const created = await api('POST', '/api/v1/websites', { form: { domain: 'locked.example', privacy: '0' } });
    expect(created.status).toBe(201);
    const ws = workspace(server, { SITESYNC_LOCKED_PW: 'locked-pw-5150' });
    ws.write('websites.yaml', LOCKED);

    const planned = await ws.run(['plan', '--format', 'json']);
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.out).changes[0].fields).toEqual([
      { field: 'privacy', before: 'public', after: 'password' },
      { field: 'password', writeOnly: true },
    ]);
    const applied = await ws.run(['apply', '--auto-approve']);
    expect(applied.err).not.toContain('422');
    expect(applied.code).toBe(0);
    const site = await api('GET', `/api/v1/websites/${created.body.data.id}`);
    expect(site.body.data).toMatchObject({ privacy: 2, password: true });

    // Now the site has a password: ignore_changes keeps it from being re-sent, even with --sync-write-only.
    const again = await ws.run(['plan', '--sync-write-only', '--detailed-exitcode']);
    expect(again.out).toContain('No changes. 1 website matches the configuration.');
    expect(again.code).toBe(0);
    expect(ws.outputs.join('')).not.toContain('locked-pw-5150');
  });

  it('notes that prune with no manage scope covers the whole account; validate warns', async () => {
    const isolated = await startTestServer();
    try {
      const api = client(isolated);
      for (const domain of ['keep.example', 'stray.example']) {
        expect((await api('POST', '/api/v1/websites', { form: { domain } })).status).toBe(201);
      }
      const ws = workspace(isolated);
      ws.write('websites.yaml', config({ 'keep.example': '' }, 'prune: true\n'));
      const planned = await ws.run(['plan']);
      expect(planned.err).toBe('');
      expect(planned.out).toContain(
        'Note: prune is on and no `manage` scope is set: every website of the account that is not listed will be deleted (within limits) (stray.example)\n',
      );
      const validated = await ws.run(['validate']);
      expect(validated.out).toContain(
        'websites.yaml:2:8: warning: prune is on and no `manage` scope is set: every website of the account that is not listed will be deleted (within limits); set manage.include to the domains this file owns\n',
      );
      ws.write('websites.yaml', config({ 'keep.example': '' }, 'prune: true\nmanage:\n  include: ["keep.*"]\n'));
      expect((await ws.run(['plan'])).out).not.toContain('prune is on');
    } finally {
      await isolated.close();
    }
  });

  it('plans without a password variable (a warning); apply, and plan --sync-write-only, need it', async () => {
    const ws = workspace(server);
    ws.write(
      'websites.yaml',
      config({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
        'vault.example': '    privacy: password\n    password: ${SITESYNC_VAULT_PW}\n',
      }),
    );
    const unset =
      'websites.yaml:5:15: warning: websites[0].password uses environment variable SITESYNC_VAULT_PW, which is not set; validate and plan do not need it, apply does\n';
    const planned = await ws.run(['plan', '--detailed-exitcode', '--out', 'plan.json']);
    expect(planned.err).toContain(unset);
    expect(planned.code).toBe(2);
    expect(planned.out).toContain('vault.example');
    const validated = await ws.run(['validate']);
    expect(validated.code).toBe(0);
    expect(validated.out).toContain(unset);

    const apply = await ws.run(['apply', 'plan.json']);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain(
      'websites.yaml:5:15: websites[0].password uses environment variable SITESYNC_VAULT_PW, which is not set\n',
    );
    expect(apply.err).toContain('apply needs every password variable (validate and plan do not)');
    const resend = await ws.run(['plan', '--sync-write-only']);
    expect(resend.code).toBe(1);
    expect(resend.err).toContain('which is not set\n');

    // The plan made without the secret applies once the apply step has it.
    ws.env.SITESYNC_VAULT_PW = 'vault-pw-16-chars-long';
    const applied = await ws.run(['apply', 'plan.json']);
    expect(applied.code).toBe(0);
    const sites = await client(server)('GET', '/api/v1/websites?search=vault.example');
    expect(sites.body.data[0]).toMatchObject({ privacy: 2, password: true });
    expect(ws.outputs.join('')).not.toContain('vault-pw-16-chars-long');
  });
  it('sends a password only for privacy: password, also from defaults; the ignored one is not stored', async () => {
    const ws = workspace(server, {
      SITESYNC_SHARED_PW: 'shared-pw-16-chars-long',
      SITESYNC_OWN_PW: 'own-pw-16-chars-long',
    });
    const sites = {
      'open-default.example': '    privacy: public\n',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
      'open-own.example': '    privacy: private\n    password: ${SITESYNC_OWN_PW}\n',
      'closed.example': '    privacy: password\n',
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
    ws.write('websites.yaml', config(sites, 'defaults:\n  password: ${SITESYNC_SHARED_PW}\n'));
    const validated = await ws.run(['validate']);
    expect(validated.out).toContain(
      'websites[1].password is ignored: a password is only used when privacy is password',
    );
    const planned = await ws.run(['plan', '--format', 'json']);
    const fields = Object.fromEntries(
      JSON.parse(planned.out).changes.map((change: { domain: string; fields: { field: string }[] }) => [
        change.domain,
        change.fields.map((field) => field.field).includes('password'),
      ]),
    );
    expect(fields).toEqual({ 'closed.example': true, 'open-default.example': false, 'open-own.example': false });
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    const api = client(server);
    for (const [domain, hasPassword] of Object.entries(fields)) {
      const found = await api('GET', `/api/v1/websites?search=${domain}`);
      expect(found.body.data[0], domain).toMatchObject({ domain, password: hasPassword });
    }
  });

  it('apply needs only the password variables it sends: an ignored password (privacy not password) needs no value', async () => {
    const ws = workspace(server, {});
    const sites = {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
      'ignored-own.example': '    privacy: private\n    password: ${SITESYNC_IGNORED_PW}\n',
      'ignored-default.example': '    privacy: public\n',
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
    const shared = 'defaults:\n  password: ${SITESYNC_SHARED_PW}\n';
    ws.write('websites.yaml', config(sites, shared));
    const validated = await ws.run(['validate']);
    expect(validated.code).toBe(0);
    expect(validated.out).toContain(
      'websites[0].password is ignored: a password is only used when privacy is password',
    );
    expect(validated.out).not.toContain('apply does'); // neither variable is needed, not even by apply
    const applied = await ws.run(['apply', '--auto-approve']);
    expect(applied.err.split('\n')[0]).toBe(
      'websites.yaml:7:15: warning: websites[0].password is ignored: a password is only used when privacy is password',
    );
    expect(applied.err).not.toMatch(/not set|missing|error/);
    expect(applied.code).toBe(0);

    // Once a site uses the default password, apply needs its variable, named once at defaults.password.
    ws.write('websites.yaml', config({ ...sites, 'closed.example': '    privacy: password\n' }, shared));
    const refused = await ws.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.err.match(/SITESYNC_SHARED_PW, which is not set/g)).toEqual([
      'SITESYNC_SHARED_PW, which is not set',
    ]);
    expect(refused.err).toContain(
      'websites.yaml:3:13: defaults.password uses environment variable SITESYNC_SHARED_PW, which is not set\n',
    );
    expect(refused.err).not.toContain('SITESYNC_IGNORED_PW');
  });
});
