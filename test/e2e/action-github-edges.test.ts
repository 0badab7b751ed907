// The GitHub Action's last breaks (issue 38), through the example workflows as
// a hosted runner runs them (test/e2e/runner: test-merge checkouts, commit
// dates out of order, no git identity, schedule payloads without repository).
import { beforeAll, describe, expect, test } from 'vitest';
import { config } from '../cli/apply-support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type PackedCli, packedCli } from './packed-cli.js';
import { type GithubStandIn, startGithubStandIn } from './runner/github-api.js';
import { type GithubRunner, type JobOptions, REPOSITORY, runJob } from './runner/github-runner.js';
import { EXAMPLES, gitopsRepo, pinnedSitesync, pushEvent } from './runner/gitops-repo.js';

const PLAN = `${EXAMPLES}/github/sitesync-plan.yml`;
const APPLY = `${EXAMPLES}/github/sitesync-apply.yml`;
const DRIFT = `${EXAMPLES}/github/sitesync-drift.yml`;

let server: TestServer;
let api: GithubStandIn;
let packed: PackedCli;
let toolCache: string;
beforeAll(async () => {
  server = await startTestServer();
  api = await startGithubStandIn(REPOSITORY);
  packed = await packedCli('action-edges');
  toolCache = tempDir('tool-cache');
  return async () => {
    await api.close();
    await server.close();
  };
}, 300_000);

async function setup(initial: Record<string, string | Buffer>) {
  const account = await server.createAccount();
  const repo = gitopsRepo(api, initial);
  const runner: GithubRunner = { origin: repo.origin, api, toolCache };
  const options: JobOptions = { vars: { SITESYNC_URL: server.url }, secrets: { SITESYNC_API_KEY: account.key } };
  return { repo, runner, options };
}

describe('the GitHub Action', { timeout: 120_000 }, () => {
  test('a first pull request that adds the pin with the configuration fails at the install, saying why (item 4)', async () => {
    const { repo, runner, options } = await setup({});
    const pull = repo.openPull(1, 'sites/first', {
      ...pinnedSitesync(packed.tarball),
      'websites.yaml': config({ 'first-a.example': '' }),
    } as Record<string, string>);
    const plan = await runJob(runner, PLAN, 'plan', pull, options);
    expect(plan.code).toBe(1);
    expect(plan.log).toContain(
      "sitesync: no package-lock.json at origin/main to take sitesync's version from (a pull request's own lockfile is never used",
    );
    expect(plan.log).not.toContain('command not found');
    expect(api.comments.filter((comment) => comment.number === 1)).toEqual([]);
  });

  test('a scheduled drift check whose payload has no repository checks the run branch (item 6)', async () => {
    const { repo, runner, options } = await setup({
      ...pinnedSitesync(packed.tarball),
      'websites.yaml': config({ 'sched-a.example': '' }),
    });
    const pull = repo.openPull(1, 'sites/more', {
      'websites.yaml': config({ 'sched-a.example': '', 'sched-b.example': '' }),
    });
    expect((await runJob(runner, PLAN, 'plan', pull, options)).code).toBe(0);
    const merged = repo.merge(1, 'sites/more');
    const apply = await runJob(runner, APPLY, 'apply', merged, options);
    expect(apply.code, apply.log).toBe(0);
    // The action pushed the tag: no "push it" advice in its log (item 11).
    expect(apply.log).not.toContain('push it');
    expect(apply.log).toContain(`moved sitesync-applied to ${merged.sha.slice(0, 7)} in origin`);
    const schedule = pushEvent(merged.sha, 'schedule');
    expect(schedule.payload).toEqual({});
    const drift = await runJob(runner, DRIFT, 'drift', schedule, options);
    expect(drift.log).not.toContain('invalid refspec');
    expect(drift.code, drift.log).toBe(0);
    expect(drift.log).toContain('No drift');
  });

  test('the re-plan path takes acknowledgements: a stale apply points to it, its plan lists them, the input gives them (item 5)', async () => {
    const limits = 'prune: true\nlimits: { max_deletes: 0 }\n';
    const { repo, runner, options } = await setup({
      ...pinnedSitesync(packed.tarball),
      'websites.yaml': config({ 'ack-a.example': '', 'ack-old.example': '' }, limits),
    });
    const first = repo.openPull(1, 'sites/setup', {
      'websites.yaml': config({ 'ack-a.example': '', 'ack-old.example': '' }, limits),
    });
    expect((await runJob(runner, PLAN, 'plan', first, options)).code).toBe(0);
    expect((await runJob(runner, APPLY, 'apply', repo.merge(1, 'sites/setup'), options)).code).toBe(0);

    const body = 'Retire ack-old.example.\n\nsitesync-acknowledge: --allow-delete ack-old.example\n';
    const removal = repo.openPull(
      2,
      'sites/remove',
      { 'websites.yaml': config({ 'ack-a.example': '' }, limits) },
      body,
    );
    expect((await runJob(runner, PLAN, 'plan', removal, options)).code).toBe(0);
    // main moves on; the branch is brought up to date, so the reviewed plan is not of the merged head.
    repo.dev.checkout('main');
    repo.dev.commit('another site', {
      'websites.yaml': config({ 'ack-a.example': '', 'ack-new.example': '', 'ack-old.example': '' }, limits),
    });
    repo.push('main');
    repo.dev.checkout('sites/remove');
    repo.dev.git('merge', '--quiet', '--no-edit', '-X', 'theirs', 'main');
    repo.dev.commit('up to date', { 'websites.yaml': config({ 'ack-a.example': '', 'ack-new.example': '' }, limits) });
    repo.push('sites/remove');
    const merged = repo.merge(2, 'sites/remove');
    const stale = await runJob(runner, APPLY, 'apply', merged, options);
    expect(stale.code).toBe(1);
    expect(stale.log).toContain('::error::the reviewed plan no longer holds: run the re-plan path');
    expect(stale.log).not.toContain('DELETE ack-old.example'); // the plan it would have applied is not shown again (item 11)

    const dispatch = (acknowledge: string) => ({
      ...pushEvent(merged.sha, 'workflow_dispatch'),
      payload: { inputs: { acknowledge }, repository: { default_branch: 'main' } },
    });
    const unacknowledged = tempDir('run-artifacts');
    const replan = await runJob(runner, APPLY, 'replan', dispatch(''), { ...options, artifacts: unacknowledged });
    expect(replan.code, replan.log).toBe(0);
    expect(replan.summary).toContain('This plan breaks a safety rule');
    expect(replan.summary).toContain('sitesync-acknowledge: --allow-delete ack-old.example');
    const refused = await runJob(runner, APPLY, 'apply-replanned', dispatch(''), {
      ...options,
      artifacts: unacknowledged,
    });
    expect(refused.code).toBe(3);
    expect(repo.originTag('sitesync-applied')).not.toBe(merged.sha);

    const acknowledged = tempDir('run-artifacts');
    const given = dispatch('--allow-delete ack-old.example');
    expect((await runJob(runner, APPLY, 'replan', given, { ...options, artifacts: acknowledged })).code).toBe(0);
    const applied = await runJob(runner, APPLY, 'apply-replanned', given, { ...options, artifacts: acknowledged });
    expect(applied.code, applied.log).toBe(0);
    expect(repo.originTag('sitesync-applied')).toBe(merged.sha);
  }, 600_000);
});
