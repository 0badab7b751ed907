// The CI workflows of examples/ci and examples/cron, step by step, against the
// reference server (temporary SQLite file): plan on a pull request (Markdown +
// plan file), apply that exact file on merge, then a nightly drift check that
// catches a change made in the web UI (exit 2), in-process and through
// examples/cron/drift-check.sh.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { config, useCliFixture, type Workspace, workspace } from '../cli/apply-support.js';
import { gitRepo } from '../helpers/git-repo.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { githubRun, gitlabScript, outOf, planFileOf, ROOT, sitesyncArgv } from './ci-commands.js';
import { runDriftCheck } from './drift-check-script.js';

const run = promisify(execFile);

describe('CI workflow: plan on PR, apply the reviewed file on merge, nightly drift check', () => {
  let server: TestServer;
  let ws: Workspace;
  beforeAll(async () => {
    const db = join(tempDir('e2e-db'), 'sitesync.db');
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
    // Installed from the repository's lockfile, never a registry name we do not own; no standing acknowledgement file.
    expect(all).not.toContain('sitesync@');
    expect(all).not.toContain('.sitesync-allow-delete');
    expect(all).toContain('npm ci');
    expect(all).toContain('npx --no-install sitesync apply');
    expect(all).toContain('sitesync plan -f websites.yaml --out plan.json --format markdown > plan.md');
    expect(all).toContain(
      'sitesync plan -f websites.yaml --baseline sitesync-applied --detailed-exitcode --format markdown > drift.md',
    );
    expect(all).toMatch(/sitesync apply reviewed[-/]plan\.json -f websites\.yaml --journal apply-journal\.jsonl/);
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

describe('examples/ci/gitlab/fetch-reviewed-plan.mjs (against a stand-in for the GitLab API)', () => {
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
    const script = join(ROOT, 'examples/ci/gitlab/fetch-reviewed-plan.mjs');
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
    const script = join(ROOT, 'examples/ci/gitlab/fetch-reviewed-plan.mjs');
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

// The GitOps loop in a real git repository (issue 16 item 11): two pull requests planned
// from the same main, both merged; the second's reviewed plan is refused as stale; the
// examples' re-plan-on-main path plans and applies main; a re-plan shows no changes. The
// sitesync command lines are read out of examples/ci, not re-typed.
type Provider = 'github' | 'gitlab';
type CiStep = 'plan' | 'apply' | 'replan' | 'applyReplanned' | 'drift';

const CI_SCRIPTS: Record<Provider, () => Record<CiStep, string>> = {
  github: () => ({
    plan: githubRun('github/sitesync-plan.yml', 'plan', 'Validate and plan'),
    apply: githubRun('github/sitesync-apply.yml', 'apply', 'Apply the reviewed plan'),
    replan: githubRun('github/sitesync-apply.yml', 'replan', 'Plan main as it is now'),
    applyReplanned: githubRun('github/sitesync-apply.yml', 'apply-replanned', 'Apply the approved plan'),
    drift: githubRun('github/sitesync-drift.yml', 'drift', 'Drift check'),
  }),
  gitlab: () => ({
    plan: gitlabScript('sitesync:plan'),
    apply: gitlabScript('sitesync:apply'),
    replan: gitlabScript('sitesync:replan'),
    applyReplanned: gitlabScript('sitesync:apply-replanned'),
    drift: gitlabScript('sitesync:drift'),
  }),
};

const BASE = `version: 1
websites:
  - domain: a.example
    privacy: public
  - domain: b.example
  - domain: c.example
  - domain: d.example
  - domain: e.example
`;

describe.each(['github', 'gitlab'] as const)('the GitOps loop in a real git repository (%s examples)', (provider) => {
  const cli = useCliFixture();

  test('two pull requests from one main: the second is stale, the re-plan on main applies it, then no changes', async () => {
    const scripts = CI_SCRIPTS[provider]();
    const argv = {
      plan: sitesyncArgv(scripts.plan, 'plan'),
      apply: sitesyncArgv(scripts.apply, 'apply'),
      replan: sitesyncArgv(scripts.replan, 'plan'),
      applyReplanned: sitesyncArgv(scripts.applyReplanned, 'apply'),
      drift: sitesyncArgv(scripts.drift, 'plan'),
    };
    const { ws } = cli;
    const repo = gitRepo(ws.dir);
    repo.write('.git/info/exclude', '/*\n!/websites.yaml\n'); // plan files, journals: CI artifacts, never committed
    repo.write('websites.yaml', BASE);
    const base = repo.commit('websites: five sites');
    expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);

    /** The pull request's plan job: its plan file is the artifact, kept outside the checkout. */
    const planPullRequest = async (branch: string, edit: (text: string) => string, message: string) => {
      repo.branch(branch, 'main');
      repo.write('websites.yaml', edit(readFileSync(join(ws.dir, 'websites.yaml'), 'utf8')));
      repo.commit(message);
      repo.git('update-ref', 'refs/remotes/origin/main', 'main'); // the job's fetch of the base branch
      const planned = await ws.run(argv.plan);
      expect(planned.code, planned.err).toBe(0);
      const artifact = readFileSync(join(ws.dir, outOf(argv.plan)), 'utf8');
      rmSync(join(ws.dir, outOf(argv.plan)));
      return { planned, artifact };
    };
    const one = await planPullRequest('sites/add-new', (text) => `${text}  - domain: new.example\n`, 'add new.example');
    expect(one.planned.out).toContain('new.example');
    const two = await planPullRequest(
      'sites/private-a',
      (text) => text.replace('privacy: public', 'privacy: private'),
      'a.example private',
    );
    expect(two.planned.out).toContain('a.example');
    expect(repo.git('merge-base', 'sites/add-new', 'sites/private-a')).toBe(base);

    /** The apply job on main after a merge: the reviewed artifact placed where the example's command reads it. */
    const applyOnMerge = (artifact: string) => {
      repo.write(planFileOf(argv.apply), artifact);
      return ws.run(argv.apply);
    };
    repo.checkout('main');
    repo.merge('sites/add-new');
    const first = await applyOnMerge(one.artifact);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('applied 1 of 1 change');

    repo.merge('sites/private-a');
    expect(readFileSync(join(ws.dir, 'websites.yaml'), 'utf8')).toContain('new.example');
    const second = await applyOnMerge(two.artifact);
    expect(second.code).toBe(1);
    expect(second.err).toContain(`the configuration changed since ${planFileOf(argv.apply)} was made`);
    expect((await ws.run(['plan', '--detailed-exitcode'])).code).toBe(2); // main is not applied yet

    // The re-plan-on-main path: plan main as it is, (approval), apply exactly that plan.
    const replanned = await ws.run(argv.replan);
    expect(replanned.code, replanned.err).toBe(0);
    expect(replanned.out).toContain('a.example');
    const artifact = readFileSync(join(ws.dir, outOf(argv.replan)), 'utf8');
    rmSync(join(ws.dir, outOf(argv.replan)));
    repo.write(planFileOf(argv.applyReplanned), artifact);
    const applied = await ws.run(argv.applyReplanned);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('applied 1 of 1 change');

    // The nightly drift job's plan: main and the service agree.
    expect((await ws.run(argv.drift)).code).toBe(0);
    expect(repo.git('status', '--porcelain')).toBe('');
  }, 60_000);
});

test('docs/workflows.md tells to require branches to be up to date', () => {
  const text = readFileSync(join(ROOT, 'docs/workflows.md'), 'utf8').replace(/\s+/g, ' ');
  expect(text).toContain('require branches to be up to date before merging');
});
