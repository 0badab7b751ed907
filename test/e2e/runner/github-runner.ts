/**
 * Runs a GitHub Actions job as a runner does, here: the job's steps in order,
 * `run:` scripts in bash (-eo pipefail) with GITHUB_OUTPUT, GITHUB_ENV and
 * GITHUB_STEP_SUMMARY files and the event's environment, this repository's
 * composite action (action.yml) step by step, `if:` conditions and `${{ }}`
 * expressions; actions/checkout as it clones (depth 1, no tags, from the
 * "origin" bare repository; a pull request's test-merge commit refs/pull/N/merge
 * fetched by id and checked out detached), actions/upload-artifact and download-artifact
 * over a local folder, actions/setup-node as a no-op (Node is this one).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { tempDir } from '../../helpers/temp.js';
import { type Contexts, condition, interpolate } from './expressions.js';
import type { GithubStandIn } from './github-api.js';
import { exec, globMatches, readKeyValues } from './step-io.js';

const ROOT = join(import.meta.dirname, '../../..');
export const REPOSITORY = 'acme/websites';

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number>;
  env?: Record<string, string>;
  shell?: string;
}
interface Job {
  if?: string;
  env?: Record<string, string>;
  steps: Step[];
}
interface ActionFile {
  inputs: Record<string, { default?: string }>;
  outputs?: Record<string, { value: string }>;
  runs: { steps: Step[] };
}

export interface GithubEvent {
  name: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';
  /** What actions/checkout checks out: a branch of origin, or a commit id. */
  checkout: string;
  sha: string;
  ref: string;
  baseRef?: string;
  payload: Record<string, unknown>;
}

export interface JobOptions {
  secrets?: Record<string, string>;
  vars?: Record<string, string>;
  matrix?: Record<string, string>;
  /** The same run's artifacts folder for the jobs of one workflow run (needs:). */
  artifacts?: string;
}

export interface JobRun {
  /** 0 when every step passed, else the exit code of the first failed step. */
  code: number;
  skipped: boolean;
  summary: string;
  log: string;
  workspace: string;
  artifacts: string;
}

export interface GithubRunner {
  origin: string;
  api: GithubStandIn;
  /** Shared by the jobs of a test file: a tool installed once (install-sitesync.sh) is reused, as on a runner. */
  toolCache: string;
}

/**
 * git as on a hosted runner: no system or global configuration, and no
 * identity (user.useConfigOnly: git refuses to guess one), so a step that
 * would need one (a commit, an annotated tag) fails here as it would there.
 */
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'user.useConfigOnly',
  GIT_CONFIG_VALUE_0: 'true',
};

const interpolateAll = (values: Record<string, string | number> | undefined, contexts: Contexts) =>
  Object.fromEntries(Object.entries(values ?? {}).map(([key, value]) => [key, interpolate(String(value), contexts)]));

export async function runJob(
  runner: GithubRunner,
  workflowFile: string,
  jobId: string,
  event: GithubEvent,
  options: JobOptions = {},
): Promise<JobRun> {
  const workflow = parse(readFileSync(workflowFile, 'utf8')) as {
    env?: Record<string, string>;
    jobs: Record<string, Job>;
  };
  const job = workflow.jobs[jobId];
  if (!job) throw new Error(`${workflowFile}: no job ${jobId}`);
  const temp = tempDir('runner');
  const workspace = join(temp, 'workspace');
  const artifacts = options.artifacts ?? join(temp, 'artifacts');
  const runnerTemp = join(temp, 'tmp');
  mkdirSync(workspace);
  mkdirSync(runnerTemp);
  mkdirSync(artifacts, { recursive: true });
  const eventPath = join(temp, 'event.json');
  writeFileSync(eventPath, JSON.stringify(event.payload));
  const github = {
    event_name: event.name,
    event: event.payload,
    sha: event.sha,
    ref: event.ref,
    ref_name: event.ref.replace(/^refs\/heads\//, ''),
    base_ref: event.baseRef ?? '',
    repository: REPOSITORY,
    token: runner.api.token,
    run_id: '4242',
    workspace,
  };
  const base: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: process.env.HOME ?? temp,
    npm_config_prefer_offline: 'true',
    ...GIT_ENV,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: event.sha,
    GITHUB_REF: event.ref,
    GITHUB_REF_NAME: github.ref_name,
    GITHUB_BASE_REF: event.baseRef ?? '',
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_WORKSPACE: workspace,
    GITHUB_API_URL: runner.api.url,
    GITHUB_RUN_ID: github.run_id,
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: runner.toolCache,
  };
  const jobEnv: Record<string, string> = {};
  const contexts: Contexts = {
    github,
    // A workflow_dispatch run's inputs (the event payload's).
    inputs: (event.payload.inputs as Record<string, string> | undefined) ?? {},
    secrets: options.secrets ?? {},
    vars: options.vars ?? {},
    matrix: options.matrix ?? {},
    env: jobEnv,
    steps: {},
  };
  Object.assign(jobEnv, interpolateAll(workflow.env, contexts), interpolateAll(job.env, contexts));
  const result: JobRun = { code: 0, skipped: false, summary: '', log: '', workspace, artifacts };
  if (job.if !== undefined && !condition(job.if, contexts, false)) return { ...result, skipped: true };

  let counter = 0;
  /** Runs `steps` with `contexts` (the job's, or an action's own); the first failure's code, or 0. */
  const runSteps = async (steps: Step[], scope: Contexts, outerEnv: Record<string, string>, actionPath?: string) => {
    let failedCode = 0;
    const stepResults: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
    scope.steps = stepResults;
    for (const step of steps) {
      if (!condition(step.if, scope, failedCode !== 0)) continue;
      const stepEnv = { ...jobEnv, ...outerEnv, ...interpolateAll(step.env, scope) };
      const files = { output: join(runnerTemp, `output-${++counter}`), env: join(runnerTemp, `env-${counter}`) };
      const summaryFile = join(runnerTemp, `summary-${counter}`);
      for (const file of [files.output, files.env, summaryFile]) writeFileSync(file, '');
      let code = 0;
      let outputs: Record<string, string> = {};
      if (step.run !== undefined) {
        const script = join(runnerTemp, `step-${counter}.sh`);
        writeFileSync(script, interpolate(step.run, scope));
        const env = {
          ...base,
          ...stepEnv,
          GITHUB_OUTPUT: files.output,
          GITHUB_ENV: files.env,
          GITHUB_STEP_SUMMARY: summaryFile,
          ...(actionPath && { GITHUB_ACTION_PATH: actionPath }),
        };
        const ran = await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], workspace, env);
        result.log += ran.out;
        code = ran.code;
        outputs = readKeyValues(files.output);
        Object.assign(jobEnv, readKeyValues(files.env));
        result.summary += readFileSync(summaryFile, 'utf8');
      } else {
        const ran = await runUses(step, interpolateAll(step.with, scope), stepEnv);
        code = ran.code;
        outputs = ran.outputs;
      }
      if (step.id) stepResults[step.id] = { outputs, outcome: code === 0 ? 'success' : 'failure' };
      if (code !== 0 && failedCode === 0) failedCode = code;
    }
    return failedCode;
  };

  const runUses = async (
    step: Step,
    inputs: Record<string, string>,
    stepEnv: Record<string, string>,
  ): Promise<{ code: number; outputs: Record<string, string> }> => {
    const uses = step.uses ?? '';
    if (uses.startsWith('actions/checkout@')) {
      const clone = await exec(
        'git',
        [
          'clone',
          '--quiet',
          '--depth',
          '1',
          '--no-tags',
          ...branchArgs(event.checkout),
          `file://${runner.origin}`,
          '.',
        ],
        workspace,
        base,
      );
      result.log += clone.out;
      if (clone.code === 0 && /^[0-9a-f]{40}$/.test(event.checkout)) {
        for (const args of [
          ['fetch', '--quiet', '--depth', '1', 'origin', event.checkout],
          ['checkout', '--quiet', '--detach', event.checkout],
        ])
          result.log += (await exec('git', args, workspace, base)).out;
      }
      return { code: clone.code, outputs: {} };
    }
    if (uses.startsWith('actions/setup-node@')) return { code: 0, outputs: {} };
    if (uses.startsWith('actions/upload-artifact@')) {
      const into = join(artifacts, inputs.name ?? 'artifact');
      mkdirSync(into, { recursive: true });
      const patterns = (inputs.path ?? '').split('\n').filter(Boolean);
      for (const name of readdirSync(workspace)) {
        if (patterns.some((pattern) => globMatches(pattern.trim(), name)))
          cpSync(join(workspace, name), join(into, name));
      }
      return { code: 0, outputs: {} };
    }
    if (uses.startsWith('actions/download-artifact@')) {
      const from = join(artifacts, inputs.name ?? 'artifact');
      if (!existsSync(from)) return { code: 1, outputs: {} };
      cpSync(from, join(workspace, inputs.path ?? '.'), { recursive: true });
      return { code: 0, outputs: {} };
    }
    if (uses === './' || /^[\w-]+\/sitesync@/.test(uses)) {
      const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;
      const actionInputs: Record<string, string> = {};
      for (const [name, input] of Object.entries(action.inputs)) {
        actionInputs[name] = inputs[name] ?? interpolate(input.default ?? '', contexts);
      }
      const scope: Contexts = { ...contexts, inputs: actionInputs, env: { ...jobEnv, ...stepEnv } };
      const code = await runSteps(action.runs.steps, scope, stepEnv, ROOT);
      const outputs = Object.fromEntries(
        Object.entries(action.outputs ?? {}).map(([name, output]) => [name, interpolate(output.value, scope)]),
      );
      return { code, outputs };
    }
    throw new Error(`the runner stand-in cannot run "uses: ${uses}"`);
  };

  result.code = await runSteps(job.steps, contexts, {});
  return result;
}

const branchArgs = (checkout: string) => (/^[0-9a-f]{40}$/.test(checkout) ? [] : ['--branch', checkout]);
