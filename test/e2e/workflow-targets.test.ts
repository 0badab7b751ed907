// The GitOps loop over several installations (issue 14), in a real git repository,
// with the configuration of examples/targets against two reference servers
// (temporary SQLite files) as its two targets, staging and production: apply and
// tag main; a pull request planned against main (one report, a saved plan set);
// the reviewed plan set applied on merge with --mark-applied; a change made
// through production's API is drift in production only (exit 4), in the one-job
// fan-out and in the matrix job; the re-plan on main applies and converges. The
// sitesync command lines are read out of examples/ci, not re-typed.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Workspace } from '../cli/apply-support.js';
import { gitRepo } from '../helpers/git-repo.js';
import { client } from '../helpers/server.js';
import { startTargetServers, type TargetServers } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';
import { githubRun, outOf, planFileOf, ROOT, sitesyncArgv } from './ci-commands.js';

const TAG = 'sitesync-applied';
const EXAMPLE = join(ROOT, 'examples/targets');
const FILES = ['websites.yaml', 'env/staging.yaml', 'env/production.yaml'];

/** The example's files, its URLs replaced by the test servers'. */
function exampleFiles(urls: { staging: string; production: string }): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of FILES) files[file] = readFileSync(join(EXAMPLE, file), 'utf8');
  const root = files['websites.yaml'] as string;
  expect(root).toContain('url: https://stats.staging.example.com\n');
  expect(root).toContain('url: https://stats.example.com\n');
  files['websites.yaml'] = root
    .replace('url: https://stats.staging.example.com\n', `url: ${urls.staging}\n`)
    .replace('url: https://stats.example.com\n', `url: ${urls.production}\n`);
  return files;
}

/** The status column of TARGET's row in the Markdown summary table. */
function statusOf(markdown: string, target: string): string | undefined {
  const row = markdown.split('\n').find((line) => line.startsWith(`| ${target} |`));
  return row?.split('|').at(-2)?.trim();
}

describe('the GitOps loop over examples/targets: two installations, one repository', () => {
  let started: TargetServers<'staging' | 'production'>;
  let ws: Workspace;
  beforeAll(async () => {
    const dir = tempDir('e2e-targets-db');
    started = await startTargetServers({
      staging: { db: join(dir, 'staging.db') },
      production: { db: join(dir, 'production.db') },
    });
    ws = started.ws;
    ws.env.SITESYNC_STAGING_KEY = started.servers.staging.key;
    ws.env.SITESYNC_PRODUCTION_KEY = started.servers.production.key;
  });
  afterAll(() => started.close());

  test('plan on a pull request, apply the reviewed plan set, drift in one target, re-plan converges', async () => {
    const argv = {
      plan: sitesyncArgv(githubRun('github/sitesync-plan.yml', 'plan', 'Validate and plan'), 'plan'),
      apply: sitesyncArgv(githubRun('github/sitesync-apply.yml', 'apply', 'Apply the reviewed plan'), 'apply'),
      replan: sitesyncArgv(githubRun('github/sitesync-apply.yml', 'replan', 'Plan main as it is now'), 'plan'),
      applyReplanned: sitesyncArgv(
        githubRun('github/sitesync-apply.yml', 'apply-replanned', 'Apply the approved plan'),
        'apply',
      ),
      fanOut: sitesyncArgv(
        githubRun('targets/sitesync-drift-fanout.yml', 'drift', 'Drift check of every target'),
        'plan',
      ),
      matrix: (target: string) =>
        sitesyncArgv(
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the step's name, a GitHub expression
          githubRun('targets/sitesync-drift-matrix.yml', 'drift', 'Drift check of ${{ matrix.target }}'),
          'plan',
          { TARGET: target },
        ),
    };
    expect(argv.matrix('production')).toContain('production');
    const { staging, production } = started.servers;
    const repo = gitRepo(ws.dir);
    repo.write('.git/info/exclude', '/*\n!/websites.yaml\n!/env/\n'); // plan files, journals: CI artifacts
    const files = exampleFiles({ staging: staging.url, production: production.url });
    for (const [file, text] of Object.entries(files)) repo.write(file, text);
    const base = repo.commit('two installations: examples/targets');
    expect((await ws.run(['validate'])).code).toBe(0);
    const bootstrap = await ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(bootstrap.code, bootstrap.err).toBe(0);
    expect(repo.revParse(TAG)).toBe(base);
    expect((await ws.run(argv.fanOut)).code).toBe(0);

    // A pull request: a site for every installation (the shared file), one for production only.
    repo.branch('sites/help-and-blog', 'main');
    const shared = readFileSync(join(ws.dir, 'websites.yaml'), 'utf8');
    repo.write('websites.yaml', `${shared}  - domain: help.example.com\n`);
    const own = readFileSync(join(ws.dir, 'env/production.yaml'), 'utf8');
    repo.write('env/production.yaml', `${own}  - domain: blog.example.com\n`);
    repo.commit('help.example.com everywhere, blog.example.com in production');
    repo.git('update-ref', 'refs/remotes/origin/main', 'main'); // the job's fetch of the base branch
    const planned = await ws.run(argv.plan);
    expect(planned.code, planned.err).toBe(0);
    expect(planned.out).toContain('### sitesync plan: 2 targets');
    expect(planned.out).toMatch(/\| staging \| 1 \| 0 \| 0 \| 0 \| changes \|/);
    expect(planned.out).toMatch(/\| production \| 2 \| 0 \| 0 \| 0 \| changes \|/);
    const artifact = readFileSync(join(ws.dir, outOf(argv.plan)), 'utf8');
    rmSync(join(ws.dir, outOf(argv.plan)));
    const set = JSON.parse(artifact) as { kind: string; targets: { name: string }[] };
    expect(set.kind).toBe('sitesync-plan-targets');
    expect(set.targets.map((part) => part.name)).toEqual(['staging', 'production']);

    // Merge, then the apply job applies exactly the reviewed plan set and moves the tag.
    repo.checkout('main');
    const merged = repo.merge('sites/help-and-blog');
    repo.write(planFileOf(argv.apply), artifact);
    const applied = await ws.run(argv.apply);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('Targets: 2; all done.');
    expect(repo.revParse(TAG)).toBe(merged);
    for (const name of ['staging', 'production']) {
      expect(existsSync(join(ws.dir, `apply-journal.${name}.jsonl`)), name).toBe(true);
    }
    expect((await ws.run(argv.fanOut)).code).toBe(0);

    // Someone turns off e-mail reports of production's shop through the API: drift there only.
    const api = client(production);
    const shop = (await api('GET', '/api/v1/websites?search=shop.example.com')).body.data[0];
    expect((await api('PUT', `/api/v1/websites/${shop.id}`, { form: { email: '0' } })).status).toBe(200);
    const drift = await ws.run(argv.fanOut);
    expect(drift.code).toBe(4);
    expect(statusOf(drift.out, 'production')).toBe('drift');
    expect(statusOf(drift.out, 'staging')).toBe('ok');
    const human = await ws.run(['plan', '--baseline', TAG, '--detailed-exitcode']);
    expect(human.code).toBe(4);
    expect(human.out).toMatch(/drift in production\.\n$/);
    // The matrix: one job per target; only production's fails.
    expect((await ws.run(argv.matrix('staging'))).code).toBe(0);
    const matrixProduction = await ws.run(argv.matrix('production'));
    expect(matrixProduction.code).toBe(4);
    expect(matrixProduction.out).toContain('shop.example.com');

    // The re-plan on main: plan main as it is, apply exactly that plan; then no drift anywhere.
    const replanned = await ws.run(argv.replan);
    expect(replanned.code, replanned.err).toBe(0);
    expect(replanned.out).toMatch(/\| production \| 0 \| 1 \| 0 \| 1 \| drift \|/);
    expect(statusOf(replanned.out, 'staging')).toBe('ok');
    repo.write(planFileOf(argv.applyReplanned), readFileSync(join(ws.dir, outOf(argv.replan)), 'utf8'));
    rmSync(join(ws.dir, outOf(argv.replan)));
    const repaired = await ws.run(argv.applyReplanned);
    expect(repaired.code, repaired.err).toBe(0);
    expect(repaired.out).toContain('Targets: 2; all done.');
    expect(repo.revParse(TAG)).toBe(merged);
    const converged = await ws.run(argv.fanOut);
    expect(converged.code, converged.out).toBe(0);
    expect(statusOf(converged.out, 'staging')).toBe('ok');
    expect(statusOf(converged.out, 'production')).toBe('ok');
    expect(repo.git('status', '--porcelain')).toBe('');
  }, 60_000);
});
