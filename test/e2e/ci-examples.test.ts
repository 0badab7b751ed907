// The CI examples' structure (issue 16): secrets only on the steps that call
// sitesync, protected environments for apply, a re-plan-on-main path with an
// approval, one marked comment per pull request that also reports failures,
// trigger paths that match what the commands read, and a GitLab plan job that
// runs where its protected key is given.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

const DIR = resolve(import.meta.dirname, '../../examples/ci');
const MARKER = '<!-- sitesync-plan -->';

interface Step {
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  if?: string;
}
interface GithubJob {
  env?: Record<string, string>;
  environment?: string;
  if?: string;
  steps: Step[];
}
interface Workflow {
  on: Record<string, { paths?: string[] } | null>;
  env?: Record<string, string>;
  jobs: Record<string, GithubJob>;
}

const github = (name: string) => parse(readFileSync(join(DIR, 'github', name), 'utf8')) as Workflow;
const WORKFLOWS = ['sitesync-plan.yml', 'sitesync-apply.yml', 'sitesync-drift.yml'];

describe('examples/ci/github', () => {
  test('secrets only in the env of steps that call sitesync, never at job or workflow level', () => {
    for (const name of WORKFLOWS) {
      const workflow = github(name);
      expect(JSON.stringify(workflow.env ?? {}), name).not.toContain('secrets.');
      for (const [id, job] of Object.entries(workflow.jobs)) {
        expect(JSON.stringify(job.env ?? {}), `${name} ${id}`).not.toContain('secrets.');
        for (const step of job.steps) {
          const secrets = Object.values(step.env ?? {}).filter((value) => value.includes('secrets.'));
          if (secrets.length > 0) expect(step.run ?? '', `${name} ${id}`).toContain('npx --no-install sitesync');
        }
      }
    }
  });

  test('plans get the key but no website password; apply jobs run in the protected environment', () => {
    const plan = github('sitesync-plan.yml');
    expect(JSON.stringify(plan.jobs)).not.toContain('PASSWORD');
    expect(JSON.stringify(github('sitesync-drift.yml').jobs)).not.toContain('PASSWORD');
    const apply = github('sitesync-apply.yml');
    expect(apply.jobs.apply?.environment).toBe('sitesync-production');
    expect(apply.jobs['apply-replanned']?.environment).toBe('sitesync-production');
  });

  test('a re-plan-on-main path: workflow_dispatch, plan, then the approved apply of that plan', () => {
    const apply = github('sitesync-apply.yml');
    expect(Object.keys(apply.on)).toContain('workflow_dispatch');
    expect(apply.jobs.replan?.if).toContain("github.event_name == 'workflow_dispatch'");
    expect((apply.jobs['apply-replanned'] as GithubJob & { needs?: string }).needs).toBe('replan');
    const runs = apply.jobs['apply-replanned']?.steps.map((step) => step.run ?? '').join('\n');
    expect(runs).toContain('sitesync apply replanned/plan.json');
  });

  test('trigger paths name only what the commands read (-f websites.yaml)', () => {
    for (const name of WORKFLOWS) {
      const workflow = github(name);
      for (const trigger of Object.values(workflow.on)) {
        if (trigger?.paths) expect(trigger.paths, name).toEqual(['websites.yaml', 'package-lock.json']);
      }
      const runs = Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
      for (const command of runs.join('\n').match(/sitesync (plan|apply|validate)[^\n]*/g) ?? []) {
        expect(command, name).toContain('-f websites.yaml');
      }
    }
  });

  test("the plan comment is this workflow's own (a hidden marker), updated, and reports failures", () => {
    const job = github('sitesync-plan.yml').jobs.plan!;
    const all = JSON.stringify(job);
    expect(all).not.toContain('--edit-last');
    const plan = job.steps.find((step) => step.run?.includes('sitesync plan'))!;
    expect(plan.run).toContain('sitesync validate');
    expect(plan.run).toContain(`echo '${MARKER}'`);
    expect(plan.run).toContain('sitesync failed (exit $code)');
    const comment = job.steps.find((step) => step.run?.includes('issues/comments'))!;
    expect(comment.if).toContain('always()');
    expect(comment.run).toContain(`startswith("${MARKER}")`);
    expect(comment.run).toContain('--method PATCH');
    const last = job.steps.at(-1)!;
    expect(last.run).toContain('exit "$code"');
  });
});

describe('the git baseline in the examples (issue 13)', () => {
  const gitlab = parse(readFileSync(join(DIR, 'gitlab/.gitlab-ci.yml'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  const gitlabScript = (job: string) => ((gitlab[job]?.script ?? []) as string[]).join('\n');
  const runs = (name: string, job: string) =>
    (github(name).jobs[job]?.steps ?? []).map((step) => step.run ?? '').join('\n');

  test('the drift jobs compare with the applied tag and fail only on drift (4); pending (2) is a warning', () => {
    const drift = runs('sitesync-drift.yml', 'drift');
    expect(drift).toContain('--baseline sitesync-applied --detailed-exitcode');
    expect(drift).toMatch(/2\) echo "::warning::[^\n]*" ;;/);
    expect(drift).toMatch(/4\) echo "::error::[^\n]*"; exit 4 ;;/);
    const checkout = github('sitesync-drift.yml').jobs.drift?.steps[0] as Step & { with?: Record<string, unknown> };
    expect(checkout.with?.['fetch-depth']).toBe(0); // the tag and its commit
    expect(gitlabScript('sitesync:drift')).toContain('refs/tags/sitesync-applied');
    expect(gitlabScript('sitesync:drift')).toContain('--baseline sitesync-applied --detailed-exitcode');
    expect(gitlab['sitesync:drift']?.allow_failure).toEqual({ exit_codes: [2] });
  });

  test('pull-request plans pass the base branch as --baseline', () => {
    expect(runs('sitesync-plan.yml', 'plan')).toContain(
      'sitesync plan -f websites.yaml --baseline "origin/$GITHUB_BASE_REF"',
    );
    expect(gitlabScript('sitesync:plan')).toContain('--baseline "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"');
  });

  test('every apply marks the applied commit and pushes the tag after success only', () => {
    const apply = github('sitesync-apply.yml');
    for (const job of ['apply', 'apply-replanned']) {
      const steps = apply.jobs[job]!.steps;
      const applying = steps.findIndex((step) => step.run?.includes('sitesync apply'));
      expect(steps[applying]?.run).toContain('--mark-applied sitesync-applied');
      const push = steps.findIndex((step) => step.run?.includes('git push --force origin refs/tags/sitesync-applied'));
      expect(push).toBeGreaterThan(applying);
      expect(steps[push]?.if).toBeUndefined(); // runs only when the apply step succeeded
      expect((apply.jobs[job] as GithubJob & { permissions?: Record<string, string> }).permissions?.contents).toBe(
        'write',
      );
    }
    for (const job of ['sitesync:apply', 'sitesync:apply-replanned']) {
      const lines = (gitlab[job]?.script ?? []) as string[];
      const applying = lines.findIndex((line) => line.includes('sitesync apply'));
      expect(lines[applying]).toContain('--mark-applied sitesync-applied');
      expect(lines[applying + 1]).toContain('repository/tags');
    }
  });
});

describe('examples/ci/gitlab/.gitlab-ci.yml', () => {
  const ci = parse(readFileSync(join(DIR, 'gitlab/.gitlab-ci.yml'), 'utf8')) as Record<string, Record<string, unknown>>;
  const script = (job: string) => ((ci[job]?.script ?? []) as string[]).join('\n');
  const rules = (job: string) => JSON.stringify(ci[job]?.rules);

  test('every script line is a string (a ": " inside an unquoted line makes it a YAML mapping)', () => {
    for (const [name, job] of Object.entries(ci)) {
      for (const line of (job?.script as unknown[] | undefined) ?? []) expect(typeof line, name).toBe('string');
    }
  });

  test('install scripts never see the job-wide variables; the plan job runs where the protected key is given', () => {
    expect(ci.default?.before_script).toEqual(['npm ci --ignore-scripts']);
    expect(rules('sitesync:plan')).toContain('$CI_MERGE_REQUEST_SOURCE_BRANCH_PROTECTED == \\"true\\"');
    expect(script('sitesync:plan')).toContain('SITESYNC_API_KEY is not set: it is a protected variable');
    expect(script('sitesync:validate')).toContain('sitesync validate -f websites.yaml');
    expect(ci['sitesync:apply']?.environment).toBe('production');
  });

  test('one marked note per merge request, written after the exit code is known, failures included', () => {
    const plan = script('sitesync:plan');
    const built = plan.indexOf('> comment.md');
    expect(built).toBeGreaterThan(plan.indexOf('code=$?'));
    expect(plan.indexOf('--data-urlencode "body@comment.md"')).toBeGreaterThan(built);
    expect(plan).not.toContain('body@plan.md');
    expect(plan).toContain('sitesync plan failed (exit $code)');
    expect(plan).toContain(MARKER);
    expect(plan).toContain('method=PUT');
  });

  test('merged-results pipelines: the plan job records the head it planned', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion in the pipeline, not a template
    expect(script('sitesync:plan')).toContain('${CI_MERGE_REQUEST_SOURCE_BRANCH_SHA:-$CI_COMMIT_SHA}" > plan-head.txt');
    expect(JSON.stringify(ci['sitesync:plan']?.artifacts)).toContain('plan-head.txt');
  });

  test('changes name only websites.yaml; a manual re-plan-on-main path', () => {
    for (const job of ['sitesync:validate', 'sitesync:plan', 'sitesync:apply']) {
      expect(rules(job)).not.toContain('websites/');
    }
    expect(rules('sitesync:apply-replanned')).toContain('"when":"manual"');
    expect(ci['sitesync:apply-replanned']?.needs).toEqual(['sitesync:replan']);
    expect(script('sitesync:apply-replanned')).toContain('sitesync apply plan.json -f websites.yaml');
  });
});

describe('examples/ci/targets', () => {
  const targets = (name: string) =>
    parse(readFileSync(join(DIR, 'targets', name), 'utf8')) as Workflow & {
      jobs: Record<string, GithubJob & { strategy?: { matrix?: { target?: string[] } } }>;
    };
  const declared = (
    parse(readFileSync(resolve(DIR, '../targets/websites.yaml'), 'utf8')) as {
      targets: { name: string; key_env: string }[];
    }
  ).targets;

  test('the matrix lists exactly the targets of examples/targets, one --target each', () => {
    const job = targets('sitesync-drift-matrix.yml').jobs.drift!;
    expect(job.strategy?.matrix?.target).toEqual(declared.map((target) => target.name));
    expect(job.environment).toBe(`sitesync-$\{{ matrix.target }}`);
    const run = job.steps.map((step) => step.run ?? '').join('\n');
    expect(run).toContain('sitesync plan --target "$TARGET" --baseline sitesync-applied --detailed-exitcode');
  });

  test('both jobs give every key_env at step level only, and the fan-out job plans all targets at once', () => {
    for (const name of ['sitesync-drift-matrix.yml', 'sitesync-drift-fanout.yml']) {
      const workflow = targets(name);
      for (const job of Object.values(workflow.jobs)) {
        expect(JSON.stringify(job.env ?? {}), name).not.toContain('secrets.');
        const step = job.steps.find((one) => (one.run ?? '').includes('sitesync plan'));
        expect(Object.keys(step?.env ?? {}), name).toEqual(expect.arrayContaining(declared.map((t) => t.key_env)));
      }
    }
    const fanout = targets('sitesync-drift-fanout.yml').jobs.drift!;
    expect(fanout.steps.map((step) => step.run ?? '').join('\n')).toMatch(
      /sitesync plan --baseline sitesync-applied --detailed-exitcode(?! --target)/,
    );
  });

  test('both drift jobs fetch the tag they compare with and fail on drift (4), not on pending changes (2)', () => {
    for (const name of ['sitesync-drift-matrix.yml', 'sitesync-drift-fanout.yml']) {
      const job = targets(name).jobs.drift!;
      expect(JSON.stringify(job.steps.find((step) => step.uses?.startsWith('actions/checkout'))), name).toContain(
        '"fetch-depth":0',
      );
      const run = job.steps.map((step) => step.run ?? '').join('\n');
      expect(run, name).toMatch(/2\) echo "::warning::/);
      expect(run, name).not.toMatch(/^\s*exit "\$code"$/m);
    }
  });
});
