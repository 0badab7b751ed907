// The sitesync GitLab component (templates/sitesync/template.yml), its jobs run
// as a GitLab runner runs them (test/e2e/runner/gitlab-runner.ts): a depth-1
// clone without tags, the pinned release tarball installed by the job, the
// same ci/ scripts as the GitHub Action, against a reference server; GitLab's
// REST API (notes, tags, the reviewed plan's lookup) is a local stand-in.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { config } from '../cli/apply-support.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type PackedCli, packedCli } from './packed-cli.js';
import { type GitlabStandIn, startGitlabStandIn } from './runner/gitlab-api.js';
import { componentJobs, type GitlabRun, projectVariables, runGitlabJob } from './runner/gitlab-runner.js';
import { gitopsRepo } from './runner/gitops-repo.js';

let server: TestServer;
let gitlab: GitlabStandIn;
let packed: PackedCli;
let toolCache: string;
beforeAll(async () => {
  toolCache = tempDir('gitlab-tool-cache');
  server = await startTestServer();
  gitlab = await startGitlabStandIn('7');
  packed = await packedCli('component-gitlab');
}, 300_000);
afterAll(async () => {
  await gitlab?.close();
  await server?.close();
});

const passes = (run: GitlabRun) => expect(run.code, run.log).toBe(0);

describe('the GitLab component, as a runner runs its jobs', () => {
  test('merge request plan note; apply on merge moves the tag; scheduled drift; the re-plan path repairs it', async () => {
    const account = await server.createAccount();
    const jobs = componentJobs({ version: packed.tarball });
    const repo = gitopsRepo(undefined, {});
    const variables = projectVariables(gitlab, { url: server.url, key: account.key }, toolCache);
    repo.openPull(3, 'sites/first', { 'websites.yaml': config({ 'gl-a.example': '', 'gl-b.example': '' }) });
    const merge = {
      CI_PIPELINE_SOURCE: 'merge_request_event',
      CI_MERGE_REQUEST_IID: '3',
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: repo.dev.revParse('sites/first'),
      CI_COMMIT_SHA: repo.dev.revParse('sites/first'),
    };
    const plan = await runGitlabJob(jobs, 'sitesync:plan', repo.origin, 'sites/first', { ...variables, ...merge });
    passes(plan);
    expect(gitlab.notes).toHaveLength(1);
    expect(gitlab.notes[0]?.body).toMatch(/^<!-- sitesync-plan -->\n> First plan/);
    expect(gitlab.notes[0]?.body).toContain('gl-a.example');
    passes(await runGitlabJob(jobs, 'sitesync:plan', repo.origin, 'sites/first', { ...variables, ...merge }));
    expect(gitlab.notes).toHaveLength(1); // edited, not another note

    // The merge: sitesync:apply takes the plan job's artifact for the merge request's head, applies it, moves the tag.
    const merged = repo.merge(3, 'sites/first').sha;
    const head = merge.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA;
    gitlab.answers.set(`/repository/commits/${merged}/merge_requests`, [{ iid: 3, state: 'merged' }]);
    gitlab.answers.set('/merge_requests/3', { iid: 3, sha: head, description: 'Two sites.' });
    gitlab.answers.set('/merge_requests/3/pipelines', [{ id: 1, sha: head }]);
    gitlab.answers.set('/pipelines/1/jobs', [{ id: 11, name: 'sitesync:plan' }]);
    gitlab.answers.set('/jobs/11/artifacts/plan.json', readFileSync(`${plan.dir}/plan.json`, 'utf8'));
    const push = { ...variables, CI_PIPELINE_SOURCE: 'push', CI_COMMIT_SHA: merged, CI_COMMIT_BRANCH: 'main' };
    const applied = await runGitlabJob(jobs, 'sitesync:apply', repo.origin, 'main', push);
    passes(applied);
    expect(applied.log).toContain('applied 2 of 2 changes');
    expect(gitlab.tags.get('sitesync-applied')).toBe(merged);

    // The tag as GitLab now has it (the stand-in created it through the API), then a scheduled drift check.
    repo.dev.git('tag', '--force', 'sitesync-applied', merged);
    repo.push('--force', 'refs/tags/sitesync-applied');
    const schedule = { ...variables, CI_PIPELINE_SOURCE: 'schedule', CI_COMMIT_SHA: merged };
    const drift = await runGitlabJob(jobs, 'sitesync:drift', repo.origin, 'main', schedule);
    passes(drift);
    expect(drift.log).toContain('No drift');
    const api = client({ url: server.url, key: account.key });
    const site = (await api('GET', '/api/v1/websites?search=gl-a.example')).body.data[0];
    await api('PUT', `/api/v1/websites/${site.id}`, { form: { email: '1' } });
    const found = await runGitlabJob(jobs, 'sitesync:drift', repo.origin, 'main', schedule);
    expect(found.code).toBe(4);
    expect(found.log).toContain('Drift: websites were changed outside sitesync');

    // The re-plan path repairs it: a pipeline run by hand plans main, the manual job applies exactly that plan.
    gitlab.tags.clear();
    const web = { ...variables, CI_PIPELINE_SOURCE: 'web', CI_COMMIT_SHA: merged, CI_COMMIT_BRANCH: 'main' };
    const replan = await runGitlabJob(jobs, 'sitesync:replan', repo.origin, 'main', web);
    passes(replan);
    expect(replan.log).toContain('gl-a.example');
    const repaired = await runGitlabJob(jobs, 'sitesync:apply-replanned', repo.origin, 'main', web, {
      'plan.json': readFileSync(`${replan.dir}/plan.json`, 'utf8'),
    });
    passes(repaired);
    expect(gitlab.tags.get('sitesync-applied')).toBe(merged);
    passes(await runGitlabJob(jobs, 'sitesync:drift', repo.origin, 'main', schedule));
  }, 120_000);
});
