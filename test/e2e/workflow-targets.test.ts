// The GitOps loop over several installations (issue 14; issue 22 item 8), run
// as a runner runs the workflows of examples/ci/targets (test/e2e/runner), with
// the configuration of examples/targets against two reference servers as its
// targets, staging and production, each with its own key variable and no
// SITESYNC_API_KEY: the first pull request and its apply; a pull request that
// edits only env/production.yaml is planned (the paths filter names env/*.yaml)
// and applied, its journal uploaded; a change made through production's API is
// drift in production only, in the fan-out job and in the matrix job.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { client } from '../helpers/server.js';
import { allowedOrigins, startTargetServers, type TargetServers } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = resolve(import.meta.dirname, '../..');

import { type PackedCli, packedCli } from './packed-cli.js';
import { type GithubStandIn, startGithubStandIn } from './runner/github-api.js';
import { type GithubRunner, type JobRun, REPOSITORY, runJob } from './runner/github-runner.js';
import { EXAMPLES, gitopsRepo, pinnedSitesync, pushEvent } from './runner/gitops-repo.js';

const EXAMPLE = join(ROOT, 'examples/targets');
const FILES = ['websites.yaml', 'env/staging.yaml', 'env/production.yaml'];
const workflow = (name: string) => join(EXAMPLES, 'targets', name);

/** The example's files, its URLs replaced by the test servers'. */
function exampleFiles(urls: { staging: string; production: string }): Record<string, string> {
  const files: Record<string, string> = {};
  for (const file of FILES) files[file] = readFileSync(join(EXAMPLE, file), 'utf8');
  files['websites.yaml'] = (files['websites.yaml'] as string)
    .replace('url: https://stats.staging.example.com\n', `url: ${urls.staging}\n`)
    .replace('url: https://stats.example.com\n', `url: ${urls.production}\n`);
  return files;
}

/** The status column of TARGET's row in the Markdown summary table. */
function statusOf(markdown: string, target: string): string | undefined {
  const row = markdown.split('\n').find((line) => line.startsWith(`| ${target} |`));
  return row?.split('|').at(-2)?.trim();
}

/** Whether a `pull_request`/`push` trigger's `paths` (GitHub globs: * in a name, ** across folders) match a changed file. */
function triggers(file: string, event: 'pull_request' | 'push', changed: string): boolean {
  const on = (parse(readFileSync(workflow(file), 'utf8')) as { on: Record<string, { paths: string[] }> }).on;
  return on[event]!.paths.some((glob) =>
    new RegExp(
      `^${glob
        .replace(/[.+^$()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\0')
        .replace(/\*/g, '[^/]*')
        .replace(/\0/g, '.*')}$`,
    ).test(changed),
  );
}

const passes = (run: JobRun) => expect(run.code, run.log).toBe(0);

describe('the GitOps loop over examples/targets, as a runner runs examples/ci/targets', () => {
  let started: TargetServers<'staging' | 'production'>;
  let api: GithubStandIn;
  let packed: PackedCli;
  beforeAll(async () => {
    started = await startTargetServers({ staging: {}, production: {} });
    api = await startGithubStandIn(REPOSITORY);
    packed = await packedCli('workflow-targets');
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await started?.close();
  });

  test('first pull request, a pull request that edits only env/production.yaml, drift in one target', async () => {
    const { staging, production } = started.servers;
    const repo = gitopsRepo(api, pinnedSitesync(packed.tarball));
    const runner: GithubRunner = { origin: repo.origin, api, toolCache: tempDir('tool-cache') };
    const options = {
      secrets: { SITESYNC_STAGING_KEY: staging.key, SITESYNC_PRODUCTION_KEY: production.key },
      vars: { SITESYNC_ALLOWED_ORIGINS: allowedOrigins([staging, production]) },
    };
    const files = exampleFiles({ staging: staging.url, production: production.url });

    const first = repo.openPull(1, 'sites/targets', files);
    passes(await runJob(runner, workflow('sitesync-plan.yml'), 'plan', first, options));
    expect(api.comments.at(-1)?.body).toContain('sitesync plan: 2 targets');
    passes(await runJob(runner, workflow('sitesync-apply.yml'), 'apply', repo.merge(1, 'sites/targets'), options));

    // Only production's own file changes.
    expect(triggers('sitesync-plan.yml', 'pull_request', 'env/production.yaml')).toBe(true);
    expect(triggers('sitesync-apply.yml', 'push', 'env/production.yaml')).toBe(true);
    const own = `${files['env/production.yaml']}  - domain: blog.example.com\n`;
    const pull = repo.openPull(2, 'sites/blog', { 'env/production.yaml': own });
    passes(await runJob(runner, workflow('sitesync-plan.yml'), 'plan', pull, options));
    const comment = api.comments.filter((entry) => entry.number === 2)[0]?.body ?? '';
    expect(comment).toMatch(/\| staging \| 0 \| 0 \| 0 \| 0 \| ok \|/);
    expect(comment).toMatch(/\| production \| 1 \| 0 \| 0 \| 0 \| changes \|/);
    const merged = repo.merge(2, 'sites/blog');
    const applied = await runJob(runner, workflow('sitesync-apply.yml'), 'apply', merged, options);
    passes(applied);
    expect(repo.originTag('sitesync-applied')).toBe(merged.sha);
    const journals = join(applied.artifacts, 'sitesync-apply-journals-4242');
    expect(existsSync(join(journals, 'apply-journal.production.jsonl'))).toBe(true);
    expect(readFileSync(join(journals, 'apply-journal.production.jsonl'), 'utf8')).toContain('blog.example.com');

    const nightly = pushEvent(merged.sha, 'schedule');
    passes(await runJob(runner, workflow('sitesync-drift-fanout.yml'), 'drift', nightly, options));
    // Someone turns off e-mail reports of production's shop through the API: drift there only.
    const shop = (await client(production)('GET', '/api/v1/websites?search=shop.example.com')).body.data[0];
    await client(production)('PUT', `/api/v1/websites/${shop.id}`, { form: { email: '0' } });
    const fanOut = await runJob(runner, workflow('sitesync-drift-fanout.yml'), 'drift', nightly, options);
    expect(fanOut.code).toBe(4);
    expect(statusOf(fanOut.summary, 'production')).toBe('drift');
    expect(statusOf(fanOut.summary, 'staging')).toBe('ok');
    const matrix = (target: string) =>
      runJob(runner, workflow('sitesync-drift-matrix.yml'), 'drift', nightly, { ...options, matrix: { target } });
    passes(await matrix('staging'));
    const productionJob = await matrix('production');
    expect(productionJob.code).toBe(4);
    expect(productionJob.summary).toContain('shop.example.com');
  }, 120_000);
});
