// The CI workflows of examples/ci and examples/cron, step by step, against the
// reference server (temporary SQLite file): plan on a pull request (Markdown +
// plan file), apply that exact file on merge, then a nightly drift check that
// catches a change made in the web UI (exit 2), in-process and through
// examples/cron/drift-check.sh.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { config, type Workspace, workspace } from '../cli/apply-support.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = resolve(import.meta.dirname, '../..');

import { runDriftCheck } from './drift-check-script.js';

const run = promisify(execFile);

describe('CI workflow: plan on PR, apply the reviewed file on merge, nightly drift check', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    const db = join(tempDir('e2e-db'), 'sitesync.db');
    server = await startTestServer({ db });
    ws = workspace(server, { SITESYNC_SHOP_PASSWORD: 'e2e-shop-password-1' });
  });
  afterAll(() => server.close());

  test('the steps and their exit codes', async () => {
    ws.write(
      'websites.yaml',
      config({
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
        'shop.example': '    privacy: password\n    password: ${SITESYNC_SHOP_PASSWORD}\n',
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
    expect(script.stdout).toMatch(
      /^sitesync: drift found in websites\.yaml: the live websites differ from the configuration: see .*drift-\d{8}T\d{6}Z\.md\n$/,
    );
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

  test('the examples are thin uses of the Action and the component, whose scripts call sitesync as this test does', () => {
    const examples = [
      'github/sitesync-plan.yml',
      'github/sitesync-apply.yml',
      'github/sitesync-drift.yml',
      'gitlab/.gitlab-ci.yml',
    ].map((file) => readFileSync(join(ROOT, 'examples/ci', file), 'utf8'));
    for (const content of examples) expect(parse(content)).toBeTypeOf('object');
    const all = examples.join('\n');
    // The Action or the component installs the pinned sitesync: no npm ci, no registry name we do not own.
    expect(all).not.toContain('npm ci');
    expect(all).not.toContain('sitesync@latest');
    expect(all).not.toContain('.sitesync-allow-delete');
    expect(all).toContain('uses: your-org/sitesync@v0.1.0');
    expect(all).toContain('component: $CI_SERVER_FQDN/your-group/sitesync/sitesync@0.1.0');
    const scripts = ['plan.sh', 'apply.sh', 'replan.sh', 'drift.sh']
      .map((name) => readFileSync(join(ROOT, 'ci', name), 'utf8'))
      .join('\n');
    expect(scripts).toContain('--out plan.json --format markdown'); // plan.sh, replan.sh
    expect(scripts).toContain('--detailed-exitcode --format markdown'); // drift.sh
    expect(scripts).toContain('--journal apply-journal.jsonl'); // apply.sh
  });
});

describe('examples/cron/drift-check.sh', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('takes a key file (and a config) whose path has spaces', async () => {
    const ws = workspace(server);
    ws.write('my sites.yaml', config({ 'a.example': '' }));
    expect((await ws.run(['apply', '-f', 'my sites.yaml', '--auto-approve'])).code).toBe(0);
    mkdirSync(join(ws.dir, 'key dir'));
    const keyFile = ws.write('key dir/api key.txt', `${server.key}\n`);
    const { SITESYNC_API_KEY: _fromFile, ...env } = ws.env;
    const result = await runDriftCheck(ws, {
      ...env,
      SITESYNC_API_KEY_FILE: keyFile,
      SITESYNC_CONFIG: 'my sites.yaml',
    });
    expect(result).toEqual({ code: 0, stdout: '' });
  });
  test('a missing report directory is an error (exit 1), not drift', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'a.example': '' }));
    const result = await runDriftCheck(ws, ws.env, { SITESYNC_REPORT_DIR: join(ws.dir, 'no such dir') });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('the drift check did not run: report directory');
    expect(result.stdout).not.toContain('drift found');
  });

  test('exit 3 (a safety rule) and exit 1 (an error) are told apart from drift', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'three-a.example': '' }));
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    ws.write('websites.yaml', config({ 'three-b.example': '' }, 'prune: true\nmanage:\n  include: ["three-*"]\n'));
    const unsafe = await runDriftCheck(ws);
    expect(unsafe.code).toBe(3);
    expect(unsafe.stdout).toContain('would break a safety rule (exit 3)');
    expect(unsafe.stdout).not.toContain('drift found');

    ws.write('websites.yaml', 'version: 1\nwebsites: nonsense\n');
    const broken = await runDriftCheck(ws);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('the drift check failed (exit 1): no drift was checked');
  });

  test('in sync with a warning: no output at all (cron mails nothing)', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'quiet.example': '' }));
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
    ws.write('websites.yaml', config({ 'Quiet.Example': '' })); // valid, with a warning (written in capitals)
    expect((await ws.run(['plan'])).err).toContain('warning');
    expect(await runDriftCheck(ws)).toEqual({ code: 0, stdout: '' });
  });

  test("under cron's PATH, a sitesync it cannot run is named with the fix", async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'a.example': '' }));
    const result = await runDriftCheck(ws, ws.env, { PATH: '/usr/bin:/bin', SITESYNC: 'sitesync-not-installed' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "cannot run 'sitesync-not-installed' (exit 127); set PATH or SITESYNC in the crontab",
    );
  });
});

describe('ci/gitlab/fetch-reviewed-plan.mjs (against a stand-in for the GitLab API)', () => {
  const HEAD = 'a'.repeat(40);
  const routes: Record<string, unknown> = {
    '/projects/7/repository/commits/m3rge/merge_requests': [{ iid: 5, state: 'merged' }],
    '/projects/7/merge_requests/5': {
      iid: 5,
      sha: HEAD,
      description: 'Retire old.\r\nsitesync-acknowledge: --allow-delete old.example\n',
    },
    // Newest first: the latest successful plan ran on an older commit and must not be taken.
    '/projects/7/merge_requests/5/pipelines': [
      { id: 30, sha: 'b'.repeat(40) },
      { id: 20, sha: HEAD },
    ],
    '/projects/7/pipelines/30/jobs': [{ id: 301, name: 'sitesync:plan' }],
    '/projects/7/pipelines/20/jobs': [{ id: 201, name: 'sitesync:plan' }],
    '/projects/7/jobs/301/artifacts/plan.json': 'the plan of an older commit',
    '/projects/7/jobs/201/artifacts/plan.json': 'the reviewed plan',
  };
  let gitlab: Server;
  let url = '';
  beforeAll(async () => {
    gitlab = createServer((request, response) => {
      const body = routes[(request.url ?? '').split('?')[0] ?? ''];
      response.writeHead(body === undefined ? 404 : 200).end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => gitlab.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(gitlab.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => gitlab.close(() => resolve())));

  test('takes the plan of the merge request head commit, and its acknowledgement lines', async () => {
    const dir = tempDir('gitlab');
    const env = { PATH: process.env.PATH ?? '', CI_API_V4_URL: url, CI_PROJECT_ID: '7', CI_COMMIT_SHA: 'm3rge' };
    const script = join(ROOT, 'ci/gitlab/fetch-reviewed-plan.mjs');
    await run(process.execPath, [script, 'plan.json', 'acks.txt'], { cwd: dir, env });
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toBe('the reviewed plan');
    expect(readFileSync(join(dir, 'acks.txt'), 'utf8')).toBe('--allow-delete\nold.example\n');

    // A merged-results pipeline ran on a merge commit: its plan job's plan-head.txt names the head it planned.
    routes['/projects/7/merge_requests/5/pipelines'] = [
      { id: 40, sha: 'c'.repeat(40) },
      { id: 30, sha: 'b'.repeat(40) },
    ];
    routes['/projects/7/pipelines/40/jobs'] = [{ id: 401, name: 'sitesync:plan' }];
    routes['/projects/7/jobs/401/artifacts/plan-head.txt'] = `${HEAD}\n`;
    routes['/projects/7/jobs/401/artifacts/plan.json'] = 'the merged-results plan';
    await run(process.execPath, [script, 'plan.json', 'acks.txt'], { cwd: dir, env });
    expect(readFileSync(join(dir, 'plan.json'), 'utf8')).toBe('the merged-results plan');

    routes['/projects/7/merge_requests/5/pipelines'] = [{ id: 30, sha: 'b'.repeat(40) }];
    const refused = await run(process.execPath, [script, 'p2.json', 'a2.txt'], { cwd: dir, env }).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `no successful sitesync:plan job for the head commit ${HEAD} of merge request !5: re-run its plan and review it`,
    );
  });

  test('an acknowledgement line that does not parse is reported and fails the job, as on GitHub', async () => {
    const dir = tempDir('gitlab');
    const env = { PATH: process.env.PATH ?? '', CI_API_V4_URL: url, CI_PROJECT_ID: '7', CI_COMMIT_SHA: 'm3rge' };
    const script = join(ROOT, 'ci/gitlab/fetch-reviewed-plan.mjs');
    routes['/projects/7/merge_requests/5/pipelines'] = [{ id: 20, sha: HEAD }];
    (routes['/projects/7/merge_requests/5'] as { description: string }).description =
      'sitesync-acknowledge: --allow-delete old.example\nsitesync-acknowledge: --force now\n' +
      'sitesync-acknowledge: --allow-delete a.example b.example\nsitesync-acknowledge:--max-deletes 4\n';
    const refused = await run(process.execPath, [script, 'plan.json', 'acks.txt'], { cwd: dir, env }).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      [
        '!5: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N or --max-change-percent N, one per line): sitesync-acknowledge: --force now',
        '!5: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N or --max-change-percent N, one per line): sitesync-acknowledge: --allow-delete a.example b.example',
        '',
      ].join('\n'),
    );
    expect(readdirSync(dir)).toEqual([]); // no plan and no acknowledgements: the apply step never runs
  });
});

test('docs/workflows.md tells to require branches to be up to date', () => {
  const text = readFileSync(join(ROOT, 'docs/workflows.md'), 'utf8').replace(/\s+/g, ' ');
  expect(text).toContain('require branches to be up to date before merging');
});
