// The sitesync GitHub Action (action.yml) through the example workflows of
// examples/ci/github, run as a runner runs them (test/e2e/runner): a shallow
// clone without tags, each step's script in order, against a reference server;
// only GitHub's REST API is a local stand-in. Issue 22: items 1, 2, 3, 5, 10,
// 15 as the workflows meet them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { config } from '../cli/apply-support.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type PackedCli, packedCli } from './packed-cli.js';
import { type GithubStandIn, startGithubStandIn } from './runner/github-api.js';
import { type GithubRunner, type JobOptions, type JobRun, REPOSITORY, runJob } from './runner/github-runner.js';
import { EXAMPLES, gitopsRepo, pinnedSitesync, pushEvent } from './runner/gitops-repo.js';

const PLAN = join(EXAMPLES, 'github/sitesync-plan.yml');
const APPLY = join(EXAMPLES, 'github/sitesync-apply.yml');
const DRIFT = join(EXAMPLES, 'github/sitesync-drift.yml');
const MARKER = '<!-- sitesync-plan -->';

let server: TestServer;
let api: GithubStandIn;
let packed: PackedCli;
let toolCache: string;
beforeAll(async () => {
  server = await startTestServer();
  api = await startGithubStandIn(REPOSITORY);
  packed = await packedCli('action-github');
  toolCache = tempDir('tool-cache');
}, 120_000);
afterAll(async () => {
  await api?.close();
  await server?.close();
});

/** A fresh account (its own websites) and a repository pinning the packed sitesync. */
async function setup(initial: Record<string, string> = {}) {
  const account = await server.createAccount();
  const repo = gitopsRepo(api, { ...pinnedSitesync(packed.tarball), ...initial });
  const runner: GithubRunner = { origin: repo.origin, api, toolCache };
  const options: JobOptions = {
    vars: { SITESYNC_URL: server.url },
    secrets: { SITESYNC_API_KEY: account.key, SITESYNC_SHOP_PASSWORD: 'shop-password-0123456789' },
  };
  const live = async () =>
    (await client({ url: server.url, key: account.key })('GET', '/api/v1/websites?per_page=100')).body.data as {
      domain: string;
      id: number;
    }[];
  return { repo, runner, options, account, live };
}

/** A job that must pass; its log is the message when it does not. */
const passes = (run: JobRun) => expect(run.code, run.log).toBe(0);
const commentOf = (number: number) => api.comments.filter((comment) => comment.number === number);

describe('the GitHub Action, as a runner runs the example workflows', { timeout: 90_000 }, () => {
  test('first pull request (no configuration on main yet) → plan comment; merge → apply of that plan → tag moved', async () => {
    const { repo, runner, options, live } = await setup();
    const pull = repo.openPull(1, 'sites/first', {
      'websites.yaml': config({ 'a.example': '    privacy: public\n', 'b.example': '' }),
    });
    const plan = await runJob(runner, PLAN, 'plan', pull, options);
    expect(plan.log).not.toContain('error');
    expect(plan.code).toBe(0);
    const [comment] = commentOf(1);
    expect(comment?.body.startsWith(MARKER)).toBe(true);
    expect(comment?.body).toContain('First plan: websites.yaml is not on main yet');
    expect(comment?.body).toContain('a.example');
    expect(plan.summary).toContain('a.example');
    expect(plan.summary).not.toContain('sitesync-plan-file');

    // A second push edits the same comment.
    const again = await runJob(runner, PLAN, 'plan', pull, options);
    expect(again.code).toBe(0);
    expect(commentOf(1)).toHaveLength(1);

    const merged = repo.merge(1, 'sites/first');
    const apply = await runJob(runner, APPLY, 'apply', merged, options);
    expect(apply.log).toContain('reviewed plan: #1');
    expect(apply.code).toBe(0);
    expect((await live()).map((site) => site.domain).sort()).toEqual(['a.example', 'b.example']);
    expect(repo.originTag('sitesync-applied')).toBe(merged.sha);
    expect(apply.summary).toContain('applied 2 of 2 changes');
  });

  test('a stale plan after a concurrent merge is refused; the re-plan path applies main and moves the tag', async () => {
    const { repo, runner, options, live } = await setup({ 'websites.yaml': config({ 'stale-a.example': '' }) });
    const first = repo.openPull(1, 'sites/one', {
      'websites.yaml': config({ 'stale-a.example': '', 'stale-b.example': '' }),
    });
    const second = repo.openPull(2, 'sites/two', {
      'websites.yaml': config({ 'stale-a.example': '    privacy: public\n' }),
    });
    passes(await runJob(runner, PLAN, 'plan', first, options));
    passes(await runJob(runner, PLAN, 'plan', second, options));
    passes(await runJob(runner, APPLY, 'apply', repo.merge(1, 'sites/one'), options));

    // #2 merges into the main #1 changed (git merges it cleanly: another line), but its plan was of the old main.
    repo.dev.checkout('sites/two');
    repo.dev.git('merge', '--quiet', '--no-edit', 'main', '-X', 'theirs');
    repo.dev.commit('pull request 2, up to date', {
      'websites.yaml': config({ 'stale-a.example': '    privacy: public\n', 'stale-b.example': '' }),
    });
    repo.push('sites/two');
    const merged = repo.merge(2, 'sites/two');
    const stale = await runJob(runner, APPLY, 'apply', merged, options);
    expect(stale.code).not.toBe(0);
    expect(stale.log).toMatch(/not of the merged head|stale|no longer/);
    expect(repo.originTag('sitesync-applied')).not.toBe(merged.sha);

    // Run workflow on main: replan, then (approved) apply-replanned, one workflow run sharing its artifacts.
    const dispatch = pushEvent(merged.sha, 'workflow_dispatch');
    const artifacts = tempDir('run-artifacts');
    const replan = await runJob(runner, APPLY, 'replan', dispatch, { ...options, artifacts });
    expect(replan.code).toBe(0);
    expect(replan.summary).toContain('stale-a.example');
    const applied = await runJob(runner, APPLY, 'apply-replanned', dispatch, { ...options, artifacts });
    expect(applied.code).toBe(0);
    expect(repo.originTag('sitesync-applied')).toBe(merged.sha);
    const sites = await live();
    expect(sites.map((site) => site.domain).sort()).toEqual(['stale-a.example', 'stale-b.example']);
  });

  test('a password rotation merged while the reviewed plan went stale is sent by the re-plan path', async () => {
    const shop = (version: string) =>
      `    privacy: password\n    password: \${SITESYNC_SHOP_PASSWORD}\n    password_version: "${version}"\n`;
    const { repo, runner, options, account, live } = await setup();
    const start = repo.openPull(1, 'sites/start', {
      'websites.yaml': config({ 'rotate-shop.example': shop('2026-01') }),
    });
    passes(await runJob(runner, PLAN, 'plan', start, options));
    passes(await runJob(runner, APPLY, 'apply', repo.merge(1, 'sites/start'), options));
    const [site] = await live();
    const hash = async () => (await server.server.store.getWebsite(account.id, site!.id))?.passwordHash;
    const before = await hash();
    expect(before).toBeTruthy();

    // The rotation is planned, but merged after another merge: its reviewed plan is stale.
    const rotation = repo.openPull(2, 'sites/rotate', {
      'websites.yaml': config({ 'rotate-shop.example': shop('2026-02') }),
    });
    const planned = await runJob(runner, PLAN, 'plan', rotation, options);
    expect(commentOf(2)[0]?.body).toContain('password');
    expect(planned.code).toBe(0);
    // Another change reaches main first; the branch is brought up to date, and merged before its plan ran again.
    repo.dev.checkout('main');
    repo.dev.commit('another site', {
      'websites.yaml': config({ 'rotate-shop.example': shop('2026-01'), 'rotate-other.example': '' }),
    });
    repo.push('main');
    repo.dev.checkout('sites/rotate');
    repo.dev.git('merge', '--quiet', '--no-edit', '-X', 'theirs', 'main');
    repo.dev.commit('up to date', {
      'websites.yaml': config({ 'rotate-shop.example': shop('2026-02'), 'rotate-other.example': '' }),
    });
    repo.push('sites/rotate');
    const merged = repo.merge(2, 'sites/rotate');
    const rotated = {
      ...options,
      secrets: { ...options.secrets, SITESYNC_SHOP_PASSWORD: 'shop-password-rotated-0123' },
    };
    const stale = await runJob(runner, APPLY, 'apply', merged, rotated);
    expect(stale.code).not.toBe(0);
    expect(await hash()).toBe(before);

    const dispatch = pushEvent(merged.sha, 'workflow_dispatch');
    const artifacts = tempDir('run-artifacts');
    const replan = await runJob(runner, APPLY, 'replan', dispatch, { ...rotated, artifacts });
    expect(replan.summary).toContain('rotate-shop.example');
    expect(replan.code).toBe(0);
    passes(await runJob(runner, APPLY, 'apply-replanned', dispatch, { ...rotated, artifacts }));
    expect(await hash()).not.toBe(before);
    expect(repo.originTag('sitesync-applied')).toBe(merged.sha);
  });

  test('the drift schedule on a checkout behind the applied tag reports no drift', async () => {
    const { repo, runner, options, live } = await setup({ 'websites.yaml': config({ 'behind-a.example': '' }) });
    const old = repo.dev.head();
    const pull = repo.openPull(1, 'sites/more', {
      'websites.yaml': config({ 'behind-a.example': '', 'behind-press.example': '' }),
    });
    passes(await runJob(runner, PLAN, 'plan', pull, options));
    const merged = repo.merge(1, 'sites/more');
    passes(await runJob(runner, APPLY, 'apply', merged, options));

    const drift = await runJob(runner, DRIFT, 'drift', pushEvent(old, 'schedule', old), options);
    expect(drift.log).toContain('is not the head of main');
    expect(drift.summary).not.toContain('DELETE');
    expect(drift.code).toBe(0);
    expect(drift.log).toContain('No drift');

    // Changed outside sitesync: exit 4, the job fails with the report.
    const [site] = (await live()).filter((entry) => entry.domain === 'behind-press.example');
    await client({ url: server.url, key: options.secrets?.SITESYNC_API_KEY ?? '' })(
      'PUT',
      `/api/v1/websites/${site!.id}`,
      {
        form: { email: '1' },
      },
    );
    const found = await runJob(runner, DRIFT, 'drift', pushEvent(merged.sha, 'schedule'), options);
    expect(found.code).toBe(4);
    expect(found.summary).toContain('behind-press.example');
  });

  test('a refused plan shows the acknowledgement lines; the description that has them lets the apply through', async () => {
    const limits = 'prune: true\nlimits: { max_deletes: 0 }\n';
    const { repo, runner, options, live } = await setup({
      'websites.yaml': config({ 'ack-a.example': '', 'ack-old.example': '' }, limits),
    });
    const setupPull = repo.openPull(1, 'sites/setup', {
      'websites.yaml': config({ 'ack-a.example': '', 'ack-old.example': '' }, limits),
    });
    passes(await runJob(runner, PLAN, 'plan', setupPull, options));
    passes(await runJob(runner, APPLY, 'apply', repo.merge(1, 'sites/setup'), options));

    const removal = repo.openPull(2, 'sites/remove', { 'websites.yaml': config({ 'ack-a.example': '' }, limits) });
    passes(await runJob(runner, PLAN, 'plan', removal, options));
    const body = commentOf(2)[0]?.body ?? '';
    expect(body).toContain('sitesync-acknowledge: --allow-delete ack-old.example');
    api.pulls.get(2)!.body = 'Retire ack-old.example.\n\nsitesync-acknowledge: --allow-delete ack-old.example\n';
    const applied = await runJob(runner, APPLY, 'apply', repo.merge(2, 'sites/remove'), options);
    expect(applied.log).toContain('acknowledged in #2: --allow-delete ack-old.example');
    expect(applied.code).toBe(0);
    expect((await live()).map((site) => site.domain)).toEqual(['ack-a.example']);
  });

  test('a pull request that swaps the lockfile does not change the sitesync its plan job runs', async () => {
    const { repo, runner, options } = await setup({ 'websites.yaml': config({ 'swap-a.example': '' }) });
    const evil = tempDir('evil');
    // Another "sitesync" whose bin would write a file (with the key it was given) if it ever ran.
    const evilPackage = {
      'package/package.json': JSON.stringify({ name: 'sitesync', version: '6.6.6', bin: { sitesync: 'bin.js' } }),
      'package/bin.js':
        "#!/usr/bin/env node\nrequire('fs').writeFileSync('pwned', process.env.SITESYNC_API_KEY ?? '')\n",
    };
    for (const [path, text] of Object.entries(evilPackage)) {
      mkdirSync(join(evil, dirname(path)), { recursive: true });
      writeFileSync(join(evil, path), text);
    }
    execFileSync('tar', ['-czf', join(evil, 'evil.tgz'), '-C', evil, 'package']);
    const swap = pinnedSitesync(join(evil, 'evil.tgz'));
    const pull = repo.openPull(1, 'sites/swap', {
      ...swap,
      'websites.yaml': config({ 'swap-a.example': '', 'swap-b.example': '' }),
    });
    const plan = await runJob(runner, PLAN, 'plan', pull, options);
    expect(plan.code).toBe(0);
    expect(existsSync(join(plan.workspace, 'pwned'))).toBe(false);
    expect(commentOf(1)[0]?.body).toContain('swap-b.example');
  });
});
