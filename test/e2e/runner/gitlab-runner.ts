/**
 * Runs a job of the sitesync GitLab component (templates/sitesync/template.yml)
 * as a GitLab runner does, here: `$[[ inputs.* ]]` filled in, `extends:`
 * merged, a clone with GIT_DEPTH 1 and no tags, before_script and script in one
 * bash (-eo pipefail) with the pipeline's CI_* variables; GitLab's REST API
 * (notes, tags) is a local stand-in (gitlab-api.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { tempDir } from '../../helpers/temp.js';
import type { GitlabStandIn } from './gitlab-api.js';
import { exec } from './step-io.js';

const TEMPLATE = join(import.meta.dirname, '../../../templates/sitesync/template.yml');

interface GitlabJob {
  extends?: string;
  variables?: Record<string, string>;
  before_script?: string[];
  script: string[];
}

export interface GitlabRun {
  code: number;
  log: string;
  dir: string;
}

/** The component's jobs with `inputs` (and the spec's defaults) filled in. */
export function componentJobs(inputs: Record<string, unknown>): Record<string, GitlabJob> {
  const [specText = '', body = ''] = readFileSync(TEMPLATE, 'utf8').split(/^---$/m);
  const spec = parse(specText) as { spec: { inputs: Record<string, { default?: unknown }> } };
  const values: Record<string, unknown> = {};
  for (const [name, input] of Object.entries(spec.spec.inputs)) values[name] = inputs[name] ?? input.default;
  const filled = body.replace(/\$\[\[ inputs\.([\w-]+) \]\]/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the component needs the input ${name}`);
    return JSON.stringify(value);
  });
  return parse(filled) as Record<string, GitlabJob>;
}

/** What a project using the component sets (CI/CD variables) and GitLab gives every job, for the stand-in. */
export function projectVariables(
  gitlab: GitlabStandIn,
  service: { url: string; key: string },
  toolCache: string,
): Record<string, string> {
  return {
    SITESYNC_URL: service.url,
    SITESYNC_API_KEY: service.key,
    SITESYNC_GITLAB_TOKEN: gitlab.token,
    CI_API_V4_URL: gitlab.url,
    CI_PROJECT_ID: gitlab.project,
    CI_DEFAULT_BRANCH: 'main',
    SITESYNC_TOOL_CACHE: toolCache, // a runner's cache: the tarball is installed once
  };
}

/** Runs job `name` in a fresh clone of `checkout` (a branch of origin), with `artifacts` (of jobs it needs) in it. */
export async function runGitlabJob(
  jobs: Record<string, GitlabJob>,
  name: string,
  origin: string,
  checkout: string,
  variables: Record<string, string>,
  artifacts: Record<string, string> = {},
): Promise<GitlabRun> {
  const job = jobs[name];
  if (!job) throw new Error(`no job ${name}`);
  const parent = job.extends ? jobs[job.extends] : undefined;
  const temp = tempDir('gitlab-job');
  const dir = join(temp, 'build');
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: process.env.HOME ?? temp,
    TMPDIR: temp,
    npm_config_prefer_offline: 'true',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GITLAB_CI: 'true',
    CI_JOB_ID: String(process.hrtime.bigint()),
    CI_PROJECT_DIR: dir,
    ...parent?.variables,
    ...job.variables,
    ...variables,
  };
  mkdirSync(dir);
  execFileSync(
    'git',
    ['clone', '--quiet', '--depth', '1', '--no-tags', '--branch', checkout, `file://${origin}`, '.'],
    {
      cwd: dir,
      env,
    },
  );
  for (const [name, text] of Object.entries(artifacts)) writeFileSync(join(dir, name), text);
  const script = join(temp, 'job.sh');
  writeFileSync(script, [...(job.before_script ?? parent?.before_script ?? []), ...job.script].join('\n'));
  const ran = await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], dir, env);
  return { code: ran.code, log: ran.out, dir };
}
