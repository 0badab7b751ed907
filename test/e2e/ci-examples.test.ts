// The CI examples' structure (issues 16 and 22): thin uses of the sitesync
// GitHub Action and GitLab component; secrets only on the step that runs
// sitesync; protected environments for apply; a re-plan-on-main path with an
// approval; trigger paths that name every file the configuration reads
// (env/*.yaml with targets); each target's own key variable, never
// SITESYNC_API_KEY, with targets; journals uploaded per target; no `npm ci`
// (the action installs the pinned sitesync, never the pull request's).
// What the jobs do is run as a runner runs it: action-github.test.ts,
// component-gitlab.test.ts, workflow-targets.test.ts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

const DIR = resolve(import.meta.dirname, '../../examples/ci');
const ROOT = resolve(DIR, '../..');
const SITESYNC = /^[\w-]+\/sitesync@v\d/;

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  if?: string;
}
interface GithubJob {
  env?: Record<string, string>;
  environment?: string;
  if?: string;
  needs?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix?: { target?: string[] } };
  steps: Step[];
}
interface Workflow {
  on: Record<string, { paths?: string[] } | null>;
  env?: Record<string, string>;
  jobs: Record<string, GithubJob>;
}

const workflow = (path: string) => parse(readFileSync(join(DIR, path), 'utf8')) as Workflow;
const GITHUB = ['github/sitesync-plan.yml', 'github/sitesync-apply.yml', 'github/sitesync-drift.yml'];
const TARGETS = [
  'targets/sitesync-plan.yml',
  'targets/sitesync-apply.yml',
  'targets/sitesync-drift-fanout.yml',
  'targets/sitesync-drift-matrix.yml',
];
const declared = (
  parse(readFileSync(resolve(DIR, '../targets/websites.yaml'), 'utf8')) as {
    targets: { name: string; key_env: string; files: string[] }[];
  }
).targets;
const sitesyncSteps = (job: GithubJob) => job.steps.filter((step) => SITESYNC.test(step.uses ?? ''));

describe('the GitHub examples use the sitesync Action', () => {
  test('secrets only in the env of the sitesync step, never at job or workflow level; no npm ci', () => {
    for (const name of [...GITHUB, ...TARGETS]) {
      const flow = workflow(name);
      expect(JSON.stringify(flow.env ?? {}), name).not.toContain('secrets.');
      for (const [id, job] of Object.entries(flow.jobs)) {
        expect(JSON.stringify(job.env ?? {}), `${name} ${id}`).not.toContain('secrets.');
        expect(sitesyncSteps(job), `${name} ${id}`).toHaveLength(1);
        for (const step of job.steps) {
          if (JSON.stringify(step.env ?? {}).includes('secrets.')) expect(step.uses, `${name} ${id}`).toMatch(SITESYNC);
          expect(step.run ?? '', name).not.toContain('npm ci');
        }
      }
    }
  });

  test('every sitesync step pins where its key may go from the settings (vars), never from a file (issue 33)', () => {
    for (const name of [...GITHUB, ...TARGETS]) {
      for (const [id, job] of Object.entries(workflow(name).jobs)) {
        const env = sitesyncSteps(job)[0]?.env ?? {};
        const pin = TARGETS.includes(name) ? 'SITESYNC_ALLOWED_ORIGINS' : 'SITESYNC_URL';
        expect(env[pin], `${name} ${id}`).toBe(`$\{{ vars.${pin} }}`);
      }
    }
  });

  test('plans get the key but no website password; apply jobs run in the protected environment', () => {
    for (const name of ['github/sitesync-plan.yml', 'github/sitesync-drift.yml']) {
      expect(JSON.stringify(workflow(name).jobs), name).not.toContain('PASSWORD');
    }
    const apply = workflow('github/sitesync-apply.yml');
    expect(apply.jobs.apply?.environment).toBe('sitesync-production');
    expect(apply.jobs['apply-replanned']?.environment).toBe('sitesync-production');
    for (const job of ['apply', 'apply-replanned']) expect(apply.jobs[job]?.permissions?.contents).toBe('write');
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's own expression, as the YAML writes it
  const ACKNOWLEDGE_INPUT = '${{ inputs.acknowledge }}';

  test('a re-plan-on-main path: workflow_dispatch, replan, then the approved apply of exactly that plan', () => {
    const apply = workflow('github/sitesync-apply.yml');
    expect(Object.keys(apply.on)).toContain('workflow_dispatch');
    expect(apply.jobs.replan?.if).toContain("github.event_name == 'workflow_dispatch'");
    expect(sitesyncSteps(apply.jobs.replan!)[0]?.with).toEqual({
      mode: 'replan',
      acknowledge: ACKNOWLEDGE_INPUT,
    });
    expect(apply.jobs['apply-replanned']?.needs).toBe('replan');
    expect(sitesyncSteps(apply.jobs['apply-replanned']!)[0]?.with).toEqual({
      mode: 'apply',
      'plan-file': 'replanned/plan.json',
      acknowledge: ACKNOWLEDGE_INPUT,
    });
  });

  test('trigger paths name every file the configuration reads: env/*.yaml with targets', () => {
    for (const name of GITHUB) {
      for (const trigger of Object.values(workflow(name).on)) {
        if (trigger?.paths) expect(trigger.paths, name).toEqual(['websites.yaml', 'package-lock.json']);
      }
    }
    const files = ['websites.yaml', ...declared.flatMap((target) => target.files)];
    for (const name of ['targets/sitesync-plan.yml', 'targets/sitesync-apply.yml']) {
      const paths = Object.values(workflow(name).on).flatMap((trigger) => trigger?.paths ?? []);
      for (const file of files) {
        expect(
          paths.some((glob) => new RegExp(`^${glob.replace('.', '\\.').replace('*', '[^/]*')}$`).test(file)),
          `${name}: ${file}`,
        ).toBe(true);
      }
    }
  });

  test("with targets: each target's key variable on the sitesync step, never SITESYNC_API_KEY; journals per target", () => {
    for (const name of TARGETS) {
      const flow = workflow(name);
      expect(JSON.stringify(flow), name).not.toContain('SITESYNC_API_KEY');
      for (const job of Object.values(flow.jobs)) {
        const env = Object.keys(sitesyncSteps(job)[0]?.env ?? {});
        expect(env, name).toEqual(expect.arrayContaining(declared.map((target) => target.key_env)));
      }
    }
    for (const name of ['github/sitesync-apply.yml', 'targets/sitesync-apply.yml']) {
      const uploads = Object.values(workflow(name).jobs).flatMap((job) =>
        job.steps.filter(
          (step) => step.uses?.startsWith('actions/upload-artifact') && step.with?.name?.includes('journal'),
        ),
      );
      expect(uploads.length, name).toBeGreaterThan(0);
      for (const upload of uploads) expect(upload.with?.path, name).toBe('apply-journal*.jsonl');
    }
  });

  test('the matrix lists exactly the targets of examples/targets, and passes one to the Action', () => {
    const job = workflow('targets/sitesync-drift-matrix.yml').jobs.drift!;
    expect(job.strategy?.matrix?.target).toEqual(declared.map((target) => target.name));
    expect(job.environment).toBe(`sitesync-$\{{ matrix.target }}`);
    expect(sitesyncSteps(job)[0]?.with).toEqual({ targets: `$\{{ matrix.target }}` });
  });
});

describe('the GitLab example includes the sitesync component', () => {
  const template = readFileSync(join(ROOT, 'templates/sitesync/template.yml'), 'utf8');
  const jobs = parse(template.split(/^---$/m)[1] ?? '') as Record<string, Record<string, unknown>>;
  const script = (job: string) => ((jobs[job]?.script ?? []) as string[]).join('\n');

  test('the example is the include, with a pinned version and no npm ci', () => {
    const example = readFileSync(join(DIR, 'gitlab/.gitlab-ci.yml'), 'utf8');
    const ci = parse(example) as { include: { component: string; inputs: { version: string } }[] };
    expect(ci.include[0]?.component).toMatch(/\/sitesync\/sitesync@\d/);
    expect(ci.include[0]?.inputs.version).toMatch(/^https:\/\/.*sitesync-\d+\.\d+\.\d+\.tgz$/);
    expect(example + template).not.toContain('npm ci');
  });

  test('every script line is a string (a ": " inside an unquoted line makes it a YAML mapping)', () => {
    for (const [name, job] of Object.entries(jobs)) {
      for (const line of [...((job.before_script as unknown[]) ?? []), ...((job.script as unknown[]) ?? [])]) {
        expect(typeof line, name).toBe('string');
      }
    }
  });

  test('the plan job runs where the protected key is given, records its head, and notes after the code is known', () => {
    expect(JSON.stringify(jobs['sitesync:plan']?.rules)).toContain(
      '$CI_MERGE_REQUEST_SOURCE_BRANCH_PROTECTED == \\"true\\"',
    );
    const plan = script('sitesync:plan');
    expect(plan).toContain('> plan-head.txt');
    expect(JSON.stringify(jobs['sitesync:plan']?.artifacts)).toContain('plan-head.txt');
    expect(plan.indexOf('note.mjs')).toBeGreaterThan(plan.indexOf('plan.sh'));
    expect(plan.indexOf('test "$code"')).toBeGreaterThan(plan.indexOf('note.mjs'));
  });

  test('apply jobs in the protected environment, one at a time; a manual re-plan-on-main path; journals per target', () => {
    for (const job of ['sitesync:apply', 'sitesync:apply-replanned']) {
      expect(jobs[job]?.environment).toBe('production');
      expect(jobs[job]?.resource_group).toBe('sitesync-apply');
      expect(JSON.stringify(jobs[job]?.artifacts)).toContain('apply-journal*.jsonl');
    }
    expect(JSON.stringify(jobs['sitesync:apply-replanned']?.rules)).toContain('"when":"manual"');
    expect(jobs['sitesync:apply-replanned']?.needs).toEqual(['sitesync:replan']);
  });
});
