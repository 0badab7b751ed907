/**
 * The sitesync command lines of the CI examples (examples/ci), read out of the
 * workflow files so that the end-to-end tests run what the examples run, not
 * a re-typed copy: a GitHub Actions step's `run`, a GitLab job's `script`,
 * and the arguments of its `npx --no-install sitesync plan|apply ...` line.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '../..');

interface GithubWorkflow {
  jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
}

/** The `run` of step `step` in job `job` of `examples/ci/FILE` (file: e.g. `github/sitesync-plan.yml`). */
export function githubRun(file: string, job: string, step: string): string {
  const workflow = parse(readFileSync(join(ROOT, 'examples/ci', file), 'utf8')) as GithubWorkflow;
  const run = workflow.jobs[job]?.steps.find((candidate) => candidate.name === step)?.run;
  if (run === undefined) throw new Error(`${file}: no step "${step}" in job ${job}`);
  return run;
}

export function gitlabScript(job: string): string {
  const ci = parse(readFileSync(join(ROOT, 'examples/ci/gitlab/.gitlab-ci.yml'), 'utf8')) as Record<
    string,
    { script?: string[] }
  >;
  const script = ci[job]?.script;
  if (script === undefined) throw new Error(`.gitlab-ci.yml: no job ${job}`);
  return script.join('\n');
}

/**
 * The arguments of the step's `npx --no-install sitesync plan|apply ...` line, up to a
 * redirection; shell-expanded acknowledgements (`"${acks[@]}"`, `$(cat ...)`) are left
 * out: these loops acknowledge nothing. `$NAME` is expanded from `variables` over
 * the variables of a pull request into main.
 */
export function sitesyncArgv(
  script: string,
  command: 'plan' | 'apply',
  variables: Record<string, string> = {},
): string[] {
  const line = new RegExp(`npx --no-install sitesync ${command}\\b([^\\n;>]*)`).exec(script);
  if (line === null) throw new Error(`no "sitesync ${command}" in:\n${script}`);
  const literal = (line[1] ?? '').split(/"\$\{\w+\[@\]\}"|\$\(/)[0] ?? '';
  const known = { ...CI_VARIABLES, ...variables };
  const args = literal
    .trim()
    .split(/\s+/)
    .filter((arg) => arg !== '')
    .map((arg) => arg.replace(/"/g, '').replace(/\$\{?(\w+)\}?/g, (whole, name: string) => known[name] ?? whole));
  return [command, ...args];
}

/** The CI variables the example commands name, as a pull request into main sets them. */
const CI_VARIABLES: Record<string, string> = { GITHUB_BASE_REF: 'main', CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main' };

/** The plan file an apply line reads (its positional argument). */
export const planFileOf = (argv: string[]): string => {
  const file = argv.find(
    (arg, index) => arg.endsWith('.json') && argv[index - 1] !== '--out' && argv[index - 1] !== '-f',
  );
  if (file === undefined) throw new Error(`no plan file in ${argv.join(' ')}`);
  return file;
};

/** The file a plan line writes (--out). */
export const outOf = (argv: string[]): string => argv[argv.indexOf('--out') + 1] ?? 'plan.json';
