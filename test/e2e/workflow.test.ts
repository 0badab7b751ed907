// The CI workflows of examples/ci and examples/cron, step by step, against the
// reference server (temporary SQLite file): plan on a pull request (Markdown +
// plan file), apply that exact file on merge, then a nightly drift check that
// catches a change made in the web UI (exit 2), in-process and through
// examples/cron/drift-check.sh.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { config, type Workspace, workspace } from '../cli/apply-support.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('CI workflow: plan on PR, apply the reviewed file on merge, nightly drift check', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'sitesync-e2e-db-')), 'sitesync.db');
    server = await startTestServer({ db });
    ws = workspace(server, { SHOP_PASSWORD: 'e2e-shop-password-1' });
  });
  afterAll(() => server.close());

  test('the steps and their exit codes', async () => {
    ws.write(
      'websites.yaml',
      config({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
        'shop.example': '    privacy: password\n    password: ${SHOP_PASSWORD}\n',
        'blog.example': '    privacy: public\n    email: true\n',
        'docs.example': '    exclude_params: [utm_source, ref]\n',
      }),
    );

    // Pull request: validate, plan as Markdown with the plan file kept.
    expect((await ws.run(['validate'])).code).toBe(0);
    const planned = await ws.run(['plan', '--out', 'plan.json', '--format', 'markdown']);
    expect(planned.code).toBe(0);
    for (const domain of ['shop.example', 'blog.example', 'docs.example']) expect(planned.out).toContain(domain);
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(2); // pending, not yet applied

    // Merge: apply exactly the reviewed file, no prompt.
    const applied = await ws.run(['apply', 'plan.json', '--journal', 'apply-journal.jsonl']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain('applied 3 of 3 changes');
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect((await ws.run(['apply', 'plan.json'])).out).toContain('applied 0 of 3 changes; 3 skipped');

    // Someone toggles a setting in the web UI.
    const api = client(server);
    const blog = (await api('GET', '/api/v1/websites?search=blog.example')).body.data[0];
    expect((await api('PUT', `/api/v1/websites/${blog.id}`, { form: { email: '0' } })).status).toBe(200);

    // Nightly drift check: exit 2 with a report naming the site and the field.
    const drift = await ws.run(['plan', '--detailed-exitcode', '--format', 'markdown']);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain('blog.example');
    expect(drift.out).toContain('email');

    // The same through examples/cron/drift-check.sh, as cron runs it.
    const script = await runDriftCheck(ws);
    expect(script.code).toBe(2);
    expect(script.stdout).toMatch(/^sitesync: drift found in websites\.yaml: see .*drift-\d{8}T\d{6}Z\.md\n$/);
    const reports = readdirSync(ws.dir).filter((name) => /^drift-.*\.md$/.test(name));
    expect(reports).toHaveLength(1);
    expect(readFileSync(join(ws.dir, reports[0]!), 'utf8')).toContain('blog.example');

    // The reviewed plan is stale now, and refused; a fresh apply repairs the drift.
    const stale = await ws.run(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain(
      `  blog.example: exists now (id ${blog.id}), though the plan creates it, and differs from the plan (email: planned true, now false)\n`,
    );
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect((await runDriftCheck(ws)).code).toBe(0);
  }, 60_000);

  test('the example workflows are valid YAML and call sitesync the way this test does', () => {
    const dir = join(ROOT, 'examples/ci');
    const files = [
      'github/sitesync-plan.yml',
      'github/sitesync-apply.yml',
      'github/sitesync-drift.yml',
      'gitlab/.gitlab-ci.yml',
    ];
    const text = files.map((file) => readFileSync(join(dir, file), 'utf8'));
    for (const content of text) expect(parse(content)).toBeTypeOf('object');
    const all = text.join('\n');
    expect(all).toContain('sitesync plan --out plan.json --format markdown > plan.md');
    expect(all).toContain('sitesync plan --detailed-exitcode --format markdown > drift.md');
    expect(all).toMatch(/sitesync apply reviewed[-/]plan\.json --journal apply-journal\.jsonl/);
  });
});

async function runDriftCheck(ws: Workspace): Promise<{ code: number; stdout: string }> {
  const env = {
    ...ws.env,
    PATH: process.env.PATH ?? '',
    // tsx by path: the script runs in the workspace, where `tsx` would not resolve.
    SITESYNC: `${process.execPath} --import ${join(ROOT, 'node_modules/tsx/dist/loader.mjs')} ${join(ROOT, 'test/e2e/sitesync-dev.ts')}`,
    SITESYNC_REPORT_DIR: ws.dir,
  };
  try {
    const { stdout } = await run('sh', [join(ROOT, 'examples/cron/drift-check.sh')], { cwd: ws.dir, env });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout + failed.stderr };
  }
}
