/**
 * `sitesync plan` end to end, in-process against the reference server over
 * real HTTP, in both server modes: the realistic example plans as expected,
 * the exit codes, the saved plan file, and --explain.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { parseSavedPlan } from '../../src/plan/saved-plan.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { type Workspace, workspace } from './apply-support.js';

const EXAMPLE = resolve('examples/realistic.yaml');
const PASSWORDS = {
  SITESYNC_ACME_PARTNERS_STATS_PASSWORD: 'partners-pw-4711',
  SITESYNC_ORBIT_INVESTORS_STATS_PASSWORD: 'investors-pw-0815',
};
const PARAMS = 'fbclid\ngclid\nutm_source\nutm_medium\nutm_campaign';
const OFFICE = '2001:db8:ac3e::/48\r\n203.0.113.0/24';

/** Live state next to the realistic example: one drifted, two in sync, one to prune, two outside the scope. */
async function seed(server: TestServer): Promise<void> {
  const api = client(server);
  const create = async (form: Record<string, string>): Promise<number> => {
    const response = await api('POST', '/api/v1/websites', { form });
    expect(response.status).toBe(201);
    return Number(response.body.data.id);
  };
  const shop = await create({
    domain: 'shop.acme.example',
    privacy: '1',
    email: '1',
    exclude_bots: '1',
    exclude_params: `${PARAMS}\ncart_id\nsession`,
    exclude_ips: OFFICE,
  });
  expect((await api('PUT', `/api/v1/websites/${shop}`, { form: { favorite: '1' } })).status).toBe(200);
  await create({ domain: 'docs.orbit.example', privacy: '0', email: '0', exclude_params: PARAMS, exclude_ips: OFFICE });
  await create({
    domain: 'partners.acme.example',
    privacy: '2',
    password: 'whatever-is-set',
    exclude_params: PARAMS,
    exclude_ips: OFFICE,
  });
  await create({ domain: 'old.legacy.example', privacy: '0', email: '1', exclude_bots: '0' });
  await create({ domain: 'beta.staging.acme.example', privacy: '0' });
  await create({ domain: 'unrelated.org', privacy: '0' });
}

for (const quirks of ['normal', 'phpanalytics-v31'] as const) {
  describe(`sitesync plan against the reference server (${quirks})`, () => {
    let server: TestServer;
    let ws: Workspace;

    beforeAll(async () => {
      server = await startTestServer(quirks === 'normal' ? {} : { quirks });
      await seed(server);
      ws = workspace(server, PASSWORDS);
    });
    const planExample = (...extra: string[]) => ws.run(['plan', '-f', EXAMPLE, '--url', server.url, ...extra]);
    afterAll(async () => server.close());

    it('plans the realistic example as expected (JSON)', async () => {
      const run = await planExample('--format', 'json');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      const document = JSON.parse(run.out);
      expect(document).toMatchObject({ formatVersion: '2.1', hasChanges: true, safe: true, target: server.url });
      expect(document.summary).toEqual({
        create: 19,
        update: 1,
        delete: 1,
        unchanged: 2,
        outOfScope: 2,
        kept: 0,
        // v31 never returns exclude_params: 19 creates + 3 matched sites; plus the 2 passwords.
        unverifiable: quirks === 'normal' ? 2 : 24,
        ignoredDrift: 0,
      });
      const summary = document.changes.map(
        (change: { action: string; domain: string }) => `${change.action} ${change.domain}`,
      );
      expect(summary.slice(0, 3)).toEqual(['delete old.legacy.example', 'create 198.51.100.80', 'create acme.example']);
      expect(document.changes.at(-1)).toMatchObject({
        action: 'update',
        domain: 'shop.acme.example',
        fields: [{ field: 'privacy', before: 'private', after: 'public' }],
      });
      expect(run.out).not.toContain(PASSWORDS.SITESYNC_ACME_PARTNERS_STATS_PASSWORD);
    });

    it('prints the human plan, destructive first; exit 2 with --detailed-exitcode', async () => {
      const run = await planExample('--detailed-exitcode');
      expect(run.code).toBe(2);
      const lines = run.out.split('\n');
      expect(lines[0]).toBe(`sitesync plan for ${server.url}`);
      expect(lines[2]).toBe('DESTRUCTIVE: 1 website will be deleted');
      expect(lines[3]).toMatch(/^ {2}- DELETE old\.legacy\.example \(id \d+\): its whole analytics history is lost/);
      expect(run.out).toContain('    privacy: private → public\n');
      expect(run.out).toContain("Note: 2 websites outside this configuration's scope\n");
      expect(lines.at(-2)).toBe('Plan: 19 to create, 1 to update, 1 to delete; 2 unchanged.');
      expect(run.out).not.toContain('\u001b[');
    });

    it('saves a plan file with everything apply needs and no secret', async () => {
      const run = await planExample('--out', 'plan.json', '--format', 'markdown');
      expect(run.code).toBe(0);
      expect(run.out).toContain('> [!CAUTION]');
      // The exact command, with the -f files and --url this plan used (issue 16 item 19).
      expect(run.err).toBe(
        `plan saved to plan.json: apply it with \`sitesync apply -f ${EXAMPLE} --url ${server.url} plan.json\`\n`,
      );
      const text = readFileSync(join(ws.dir, 'plan.json'), 'utf8');
      const saved = parseSavedPlan(text, 'plan.json');
      expect(saved.target).toBe(server.url);
      expect(saved.configDigest).toBe((await loadConfig({ files: [EXAMPLE], cwd: ws.dir, env: ws.env })).state?.digest);
      expect(saved.configDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(saved.fingerprints).toHaveLength(21);
      for (const secret of [...Object.values(PASSWORDS), server.key]) expect(text).not.toContain(secret);
    });

    it('exits 3 when the plan violates a safety limit, with the violation in the output', async () => {
      const file = ws.write(
        'tight.yaml',
        'version: 1\nprune: true\nlimits:\n  max_deletes: 0\nwebsites:\n  - domain: docs.orbit.example\n    privacy: public\n',
      );
      const run = await ws.run(['plan', '-f', file, '--url', server.url, '--only', '*.example']);
      expect(run.code).toBe(3);
      expect(run.out).toContain(
        '  ✗ max_deletes: 4 deletes exceed limits.max_deletes (0): beta.staging.acme.example, old.legacy.example, partners.acme.example, shop.acme.example\n',
      );
      expect(run.out).toContain('Note: 1 website left out by --only/--skip\n');
    });

    it('explains raw and canonical values with --explain, restricted by --only', async () => {
      const run = await planExample('--explain', '--only', 'docs.orbit.example');
      expect(run.code).toBe(0);
      expect(run.out).toContain('  docs.orbit.example (id ');
      expect(run.out).toContain(
        '    exclude_ips: live "2001:db8:ac3e::/48\\r\\n203.0.113.0/24" → ["2001:db8:ac3e::/48","203.0.113.0/24"]',
      );
      expect(run.out).toContain('No changes. 1 website matches the configuration.');
    });

    it('never prints a password, even with --explain in every format', async () => {
      for (const format of ['human', 'json', 'markdown']) {
        const run = await planExample('--explain', '--format', format, '--sync-write-only');
        // Captured output is redacted like a terminal's, so a leak would show as the placeholder.
        for (const secret of [...Object.values(PASSWORDS), '(secret)']) expect(run.out + run.err).not.toContain(secret);
      }
      const json = JSON.parse((await planExample('--explain', '--format', 'json')).out);
      const partners = json.explain.find((site: { domain: string }) => site.domain === 'partners.acme.example');
      expect(partners.fields.at(-1)).toEqual({
        field: 'password',
        live: { raw: true, canonical: true },
        // canonical: whether a password is configured; its value is never part of the plan.
        desired: { raw: null, canonical: true },
        outcome: 'write-only',
      });
    });

    it('reports the requests a plan used in debug output', async () => {
      const run = await planExample('--log-level', 'debug', '--format', 'json');
      expect(run.err).toMatch(/debug: listed 6 websites in 1 requests \(0 retries, 0 throttled\)/);
    });
  });
}

describe('sitesync plan: errors', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('reports every configuration problem and exits 1', async () => {
    const ws = workspace(server);
    const file = ws.write('bad.yaml', 'version: 1\nwebsites:\n  - domain: a.example\n    privacy: secret\n');
    const run = await ws.run(['plan', '-f', file]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('bad.yaml:4:14');
    expect(run.err).toContain('error: the configuration is invalid (1 problem)');
  });

  it('rejects a bad --only glob as a usage error', async () => {
    const ws = workspace(server);
    const run = await ws.run(['plan', '--only', 'a b']);
    expect(run.code).toBe(1);
    expect(run.err).toBe('error: --only "a b": not a domain glob (letters, digits, . - _ * ?)\n');
  });
});
