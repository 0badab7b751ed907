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
    expect((await runJob(runner, APPLY, 'apply', merged, options)).code).toBe(0);
    const schedule = pushEvent(merged.sha, 'schedule');
    expect(schedule.payload).toEqual({});
    const drift = await runJob(runner, DRIFT, 'drift', schedule, options);
    expect(drift.log).not.toContain('invalid refspec');
    expect(drift.code, drift.log).toBe(0);
    expect(drift.log).toContain('No drift');
  });
});
