// The sitesync GitHub Action (action.yml) through the example workflows of
// examples/ci/github, run as a runner runs them (test/e2e/runner): a shallow
// clone without tags, each step's script in order, against a reference server;
// only GitHub's REST API is a local stand-in. Issue 22: items 1, 2, 3, 5, 10,
// 15 as the workflows meet them.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { config } from '../cli/apply-support.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type BuiltCli, buildCli } from './built-cli.js';
import { type PackedCli, packCli } from './packed-cli.js';
import { type GithubStandIn, startGithubStandIn } from './runner/github-api.js';
import { type GithubRunner, type JobOptions, REPOSITORY, runJob } from './runner/github-runner.js';
import { EXAMPLES, type GitopsRepo, gitopsRepo, pinnedSitesync, pushEvent } from './runner/gitops-repo.js';

const PLAN = join(EXAMPLES, 'github/sitesync-plan.yml');
const APPLY = join(EXAMPLES, 'github/sitesync-apply.yml');
const DRIFT = join(EXAMPLES, 'github/sitesync-drift.yml');
const MARKER = '<!-- sitesync-plan -->';

let server: TestServer;
let api: GithubStandIn;
let built: BuiltCli;
let packed: PackedCli;
let toolCache: string;
beforeAll(async () => {
  server = await startTestServer();
  api = await startGithubStandIn(REPOSITORY);
  built = buildCli('action-github');
  packed = packCli(built, 'action-github');
  toolCache = tempDir('tool-cache');
}, 120_000);
afterAll(async () => {
  built?.remove();
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
    secrets: { SITESYNC_API_KEY: account.key, SHOP_PASSWORD: 'shop-password-0123456789' },
  };
  const live = async () =>
    (await client({ url: server.url, key: account.key })('GET', '/api/v1/websites?per_page=100')).body.data as {
      domain: string;
      id: number;
    }[];
  return { repo, runner, options, account, live };
}

const commentOf = (number: number) => api.comments.filter((comment) => comment.number === number);

describe('the GitHub Action, as a runner runs the example workflows', () => {
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
});
