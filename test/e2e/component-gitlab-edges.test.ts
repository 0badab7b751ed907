// The GitLab component's last breaks (issue 38, items 4 and 7), its jobs run
// as a GitLab runner runs them (test/e2e/runner/gitlab-runner.ts): a failed
// install fails the job where it happens; the plan note is the one the token's
// user wrote; warnings read as text in GitLab's log, not as GitHub commands.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { config } from '../cli/apply-support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type PackedCli, packedCli } from './packed-cli.js';
import { type GitlabStandIn, startGitlabStandIn } from './runner/gitlab-api.js';
import { componentJobs, projectVariables, runGitlabJob } from './runner/gitlab-runner.js';
import { gitopsRepo } from './runner/gitops-repo.js';

const MARKER = '<!-- sitesync-plan -->';

let server: TestServer;
let gitlab: GitlabStandIn;
let packed: PackedCli;
beforeAll(async () => {
  server = await startTestServer();
  gitlab = await startGitlabStandIn('7');
  packed = await packedCli('component-edges');
  return async () => {
    await gitlab.close();
    await server.close();
  };
}, 300_000);

/** A merge request's plan pipeline on branch sites/first, with the component at `version`. */
async function planJob(version: string) {
  const account = await server.createAccount();
  const repo = gitopsRepo(undefined, {});
  repo.openPull(3, 'sites/first', { 'websites.yaml': config({ 'gl-a.example': '' }) });
  const head = repo.dev.revParse('sites/first');
  const variables = {
    ...projectVariables(gitlab, { url: server.url, key: account.key }, tempDir('gitlab-tool-cache')),
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_MERGE_REQUEST_IID: '3',
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: head,
    CI_COMMIT_SHA: head,
  };
  const run = () => runGitlabJob(componentJobs({ version }), 'sitesync:plan', repo.origin, 'sites/first', variables);
  return { repo, variables, run };
}

/** The packed tarball with a package.json npm cannot read: its install fails. */
function brokenTarball(): string {
  const dir = tempDir('broken-tarball');
  execFileSync('tar', ['-xzf', packed.tarball, '-C', dir]);
  writeFileSync(join(dir, 'package/package.json'), '{ "name": "sitesync", ');
  execFileSync('tar', ['-czf', join(dir, 'broken.tgz'), '-C', dir, 'package']);
  return join(dir, 'broken.tgz');
}

describe('the GitLab component', { timeout: 120_000 }, () => {
  test('a failed install fails the job there: no plan runs, no note is posted (item 4)', async () => {
    const { run } = await planJob(brokenTarball());
    gitlab.notes.length = 0;
    const plan = await run();
    expect(plan.code).not.toBe(0);
    expect(plan.log).not.toContain('command not found');
    expect(plan.log).not.toContain('sitesync failed');
    expect(gitlab.notes).toEqual([]);
  });

  test('a note someone else wrote with the marker is left alone: the job writes its own (item 7)', async () => {
    const { run } = await planJob(packed.tarball);
    gitlab.notes.length = 0;
    const forged = `${MARKER}\nNothing to see here.`;
    gitlab.notes.push({ id: 1, iid: 3, body: forged, author: { id: gitlab.userId + 1 } });
    const plan = await run();
    expect(plan.code, plan.log).toBe(0);
    expect(gitlab.notes.map((note) => note.body.startsWith(MARKER))).toEqual([true, true]);
    expect(gitlab.notes[0]?.body).toBe(forged);
    expect(gitlab.notes[1]?.author.id).toBe(gitlab.userId);
    expect(gitlab.notes[1]?.body).toContain('gl-a.example');
    expect((await run()).code).toBe(0);
    expect(gitlab.notes).toHaveLength(2); // its own note edited, not a third
  });

  test('the drift job writes warnings and errors as text, not GitHub workflow commands (item 7)', async () => {
    const { repo, variables } = await planJob(packed.tarball);
    repo.dev.checkout('main');
    const shop = `    privacy: password\n    password: \${SITESYNC_SHOP_PASSWORD}\n`;
    repo.dev.commit('configuration', { 'websites.yaml': config({ 'gl-drift.example': '', 'gl-shop.example': shop }) });
    repo.push('main');
    const schedule = { ...variables, CI_PIPELINE_SOURCE: 'schedule', CI_COMMIT_SHA: repo.dev.head() };
    const drift = await runGitlabJob(
      componentJobs({ version: packed.tarball }),
      'sitesync:drift',
      repo.origin,
      'main',
      schedule,
    );
    expect(drift.code).toBe(2);
    expect(drift.log).toContain('warning: no tag sitesync-applied yet: drift and pending changes cannot be told apart');
    expect(drift.log).toContain('error: The live websites differ from the configuration');
    expect(drift.log).not.toContain('::');
    // The drift job never applies: no warning about the password variable it is (rightly) not given (item 11).
    expect(drift.log).not.toContain('SHOP_PASSWORD');
  });
});
