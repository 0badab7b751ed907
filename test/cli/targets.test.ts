/**
 * One configuration, three installations at once (issue 14): staging (the
 * reference server), production (the phpanalytics-v31 quirks mode) and broken
 * (given a wrong key). Plan and apply fan out over all of them; a failing
 * target is reported under its name and never stops the others; the exit
 * code is the most severe; a saved plan holds a part per target, each with its
 * own staleness check.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { insertWebsite } from '../helpers/server.js';
import { useTargetServers, validApplyTargets, validTargetsDocument } from '../helpers/targets.js';

const fixture = useTargetServers(
  { staging: { quirks: undefined }, production: { quirks: 'phpanalytics-v31' }, broken: { failedAuthPerMinute: 0 } },
  {
    keys: { broken: 'wrong-key-0123456789abcdef' },
    setup: () => {
      const { staging, production, broken } = fixture;
      fixture.ws.write(
        'websites.yaml',
        `version: 1
targets:
  - name: staging
    url: ${staging.url}
    key_env: SITESYNC_STAGING_KEY
    files: [staging.yaml]
  - name: production
    url: ${production.url}
    key_env: SITESYNC_PRODUCTION_KEY
    files: [production.yaml]
    limits: { max_deletes: 0 }
  - name: broken
    url: ${broken.url}
    key_env: SITESYNC_BROKEN_KEY
websites:
  - domain: shared.example
`,
      );
      fixture.ws.write('staging.yaml', 'version: 1\nwebsites:\n  - domain: staging-only.example\n');
      fixture.ws.write('production.yaml', 'version: 1\nwebsites:\n  - domain: production-only.example\n');
    },
  },
);

interface TargetDocument {
  name: string;
  target: string;
  error?: { code: string; message: string };
  hasChanges?: boolean;
  changes?: { action: string; domain: string }[];
}

const domainsOf = (target: TargetDocument | undefined) => target?.changes?.map((change) => change.domain).sort();

describe('plan over targets', () => {
  it('plans every target at once; the broken one is reported by name and the exit code is the worst', async () => {
    const { code, out } = await fixture.ws.run(['plan', '--format', 'json']);
    const document = JSON.parse(out) as { formatVersion: string; targets: TargetDocument[] };
    expect(document.formatVersion).toBe('2.0');
    expect(validTargetsDocument(document), JSON.stringify(validTargetsDocument.errors)).toBe(true);
    expect(document.targets.map((target) => target.name)).toEqual(['staging', 'production', 'broken']);
    const [staging, production, broken] = document.targets;
    expect(domainsOf(staging)).toEqual(['shared.example', 'staging-only.example']);
    expect(domainsOf(production)).toEqual(['production-only.example', 'shared.example']);
    expect(production?.target).toBe(fixture.production.url);
    // The same error object as the single-target error document (and apply over targets).
    expect(broken?.error).toEqual({ code: 'auth', message: expect.stringMatching(/key|401/i) });
    expect(broken?.changes).toBeUndefined();
    expect(code).toBe(1);
  });

  it('exits with the most severe code over the chosen targets (--target, globs)', async () => {
    const changes = await fixture.ws.run(['plan', '--target', 's*', '--target', 'production', '--detailed-exitcode']);
    expect(changes.code).toBe(2);
    expect(changes.out).toContain('=== target staging');
    expect(changes.out).toContain('=== target production');
    expect(changes.out).not.toContain('=== target broken');
    // production's own limits: its prune of one site breaks max_deletes 0 (3 beats 2).
    await insertWebsite(fixture.production, 'gone.example');
    fixture.ws.write('production.yaml', 'version: 1\nprune: true\nwebsites:\n  - domain: production-only.example\n');
    const unsafe = await fixture.ws.run([
      'plan',
      '--target',
      'staging',
      '--target',
      'production',
      '--detailed-exitcode',
    ]);
    expect(unsafe.code).toBe(3);
  });

  it('refuses a --target that matches no target, naming the declared ones', async () => {
    const { code, err } = await fixture.ws.run(['plan', '--target', 'prod']);
    expect(code).toBe(1);
    expect(err).toContain('--target prod matches no target (declared: staging, production, broken)');
  });

  it('plans every target with --target-parallelism 1, and refuses 0', async () => {
    const serial = await fixture.ws.run(['plan', '--target-parallelism', '1', '--format', 'json']);
    const document = JSON.parse(serial.out) as { targets: TargetDocument[] };
    expect(document.targets.map((target) => [target.name, target.error === undefined])).toEqual([
      ['staging', true],
      ['production', true],
      ['broken', false],
    ]);
    const refused = await fixture.ws.run(['plan', '--target-parallelism', '0']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('--target-parallelism "0": expected a whole number ≥ 1');
  });

  it('writes Markdown with a summary table and one section per target', async () => {
    const { out } = await fixture.ws.run(['plan', '--format', 'markdown']);
    expect(out).toContain('| Target | Creates | Updates | Deletes | Drift | Status |');
    expect(out).toContain('| staging | 2 | 0 | 0 | – | changes |');
    expect(out).toContain('| broken | – | – | – | – | failed |');
    expect(out).toMatch(/## production\n/);
  });

  it('shows one line per target on a terminal', async () => {
    const { err } = await fixture.ws.run(['plan', '--target', 'staging', '--target', 'production'], { tty: true });
    const last = err.slice(err.lastIndexOf('\x1b[J') + 3);
    expect(last.split('\n').filter((line) => line !== '')).toEqual([
      expect.stringMatching(/^staging\s+done$/),
      expect.stringMatching(/^production\s+done$/),
    ]);
  });
});

describe('apply over targets', () => {
  it('applies the reachable targets, reports the broken one, and exits 1', async () => {
    const { code, out, err } = await fixture.ws.run(['apply', '--auto-approve']);
    expect(code).toBe(1);
    expect(out).toContain('=== target staging');
    expect(out).toMatch(/=== target broken[^\n]*\nerror: /);
    expect(out).toContain('not done: broken');
    expect(err).toMatch(/\[staging\] /);
    const again = await fixture.ws.run(['plan', '--target', 'staging', '--target', 'production', '--format', 'json']);
    const document = JSON.parse(again.out) as { targets: TargetDocument[] };
    expect(document.targets.map((target) => target.hasChanges)).toEqual([false, false]);
  });

  it('a target whose writes the service refuses fails alone: the others are applied', async () => {
    await fixture.production.setAccount(fixture.production.accountId, { websiteLimit: 1 });
    const { code, out } = await fixture.ws.run([
      'apply',
      '--auto-approve',
      '--target',
      'staging',
      '--target',
      'production',
      '--format',
      'json',
    ]);
    expect(code).toBe(1);
    const document = JSON.parse(out) as { targets: { name: string; ok: boolean; exitCode: number }[] };
    expect(document.targets.map((target) => [target.name, target.ok, target.exitCode])).toEqual([
      ['staging', true, 0],
      ['production', false, 1],
    ]);
  });

  it("names the target on every line of each target's journal", async () => {
    const args = ['apply', '--auto-approve', '--target', 'staging', '--target', 'production'];
    expect((await fixture.ws.run([...args, '--journal', 'apply-journal.jsonl'])).code).toBe(0);
    for (const name of ['staging', 'production']) {
      const lines = readFileSync(join(fixture.ws.dir, `apply-journal.${name}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; target?: string; url?: string });
      expect(lines.length).toBeGreaterThan(2);
      expect(lines.every((line) => line.target === name)).toBe(true);
      expect(lines[0]).toMatchObject({ event: 'begin', url: fixture[name as 'staging' | 'production'].url });
    }
  });

  it("shows each target's apply progress on its own line on a terminal", async () => {
    const { err } = await fixture.ws.run(['apply', '--auto-approve', '--target', 'staging', '--target', 'production'], {
      tty: true,
    });
    const frames = err.split('\x1b[J').map((frame) => frame.split('\n').filter((line) => line !== ''));
    expect(frames.some((frame) => /^staging\s+applying 2\/2/.test(frame[0] ?? ''))).toBe(true);
    expect(frames.some((frame) => /^production\s+applying 2\/2/.test(frame[1] ?? ''))).toBe(true);
    expect(frames.at(-1)).toEqual([
      expect.stringMatching(/^staging\s+done$/),
      expect.stringMatching(/^production\s+done$/),
    ]);
  });

  it('asks once for every target: the plans first, one question, one answer for all', async () => {
    const questions: string[] = [];
    const answering = (answer: string) => async (question: string) => {
      questions.push(question);
      return answer;
    };
    const args = ['apply', '--target', 'staging', '--target', 'production'];
    const no = await fixture.ws.run(args, { prompt: answering('no') });
    expect(no.code).toBe(1);
    expect(questions).toEqual([
      'Apply to 2 targets (staging: 2 to create, 0 to update, 0 to delete; production: 2 to create, 0 to update, 0 to delete)? Only "yes" is accepted: ',
    ]);
    expect(no.err).toContain('=== target staging (');
    expect(no.err).toContain('+ staging-only.example will be created');
    expect(no.err).toContain('apply cancelled: nothing was changed');
    expect((await fixture.ws.run(['plan', ...args.slice(1), '--detailed-exitcode'])).code).toBe(2);

    const yes = await fixture.ws.run(args, { prompt: answering('yes') });
    expect(yes.code, yes.err).toBe(0);
    expect(questions).toHaveLength(2);
    expect(yes.out).toContain('Targets: 2; all done.');
    expect((await fixture.ws.run(['plan', ...args.slice(1), '--detailed-exitcode'])).code).toBe(0);
  });

  it('asks once with --target-parallelism 1 too: the question waits for every plan, and no target waits for a slot', async () => {
    const questions: string[] = [];
    const args = ['apply', '--target', 'staging', '--target', 'production', '--target-parallelism', '1'];
    const no = await fixture.ws.run(args, {
      prompt: async (question: string) => {
        questions.push(question);
        return 'no';
      },
    });
    expect(no.code, no.err).toBe(1);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatch(/^Apply to 2 targets \(staging: .*; production: .*\)\?/);
  });

  it("an --allow-policy acknowledging one target's violation is no typo in another target's plan", async () => {
    const config = readFileSync(join(fixture.ws.dir, 'websites.yaml'), 'utf8');
    const policy = `policies:
  - name: production-reports
    match: { targets: [production], include: [production-only.example] }
    rule: site.email
    message: production sites send reports
`;
    fixture.ws.write('websites.yaml', config.replace('websites:\n', `${policy}websites:\n`));
    const args = ['apply', '--target', 'staging', '--target', 'production', '--auto-approve'];
    expect((await fixture.ws.run(args)).code).toBe(3);
    const acknowledged = await fixture.ws.run([
      ...args,
      '--allow-policy',
      'production-reports:production-only.example',
    ]);
    expect(acknowledged.code, acknowledged.err).toBe(0);
    expect(acknowledged.out).toContain('Targets: 2; all done.');
  });

  it('off a terminal, asks for --auto-approve or a reviewed plan file', async () => {
    const { code, err } = await fixture.ws.run(['apply', '--target', 'staging']);
    expect(code).toBe(1);
    expect(err).toContain('not a terminal, so there is no one to confirm: pass --auto-approve');
  });

  it('applies a saved plan per target: the stale target is refused and named, the fresh one applied', async () => {
    const planned = await fixture.ws.run([
      'plan',
      '--target',
      'staging',
      '--target',
      'production',
      '--out',
      'plan.json',
    ]);
    expect(planned.code).toBe(0);
    const file = JSON.parse(readFileSync(join(fixture.ws.dir, 'plan.json'), 'utf8')) as {
      kind: string;
      targets: { name: string; signature: string; target: string }[];
    };
    expect(file.kind).toBe('sitesync-plan-targets');
    expect(file.targets.map((part) => [part.name, part.target])).toEqual([
      ['staging', fixture.staging.url],
      ['production', fixture.production.url],
    ]);
    // Someone creates production's site by hand, with other settings: production's part is stale.
    await insertWebsite(fixture.production, 'production-only.example', { values: { email: 1 } });
    const applied = await fixture.ws.run(['apply', 'plan.json', '--format', 'json']);
    expect(applied.code).toBe(1);
    const document = JSON.parse(applied.out) as {
      ok: boolean;
      targets: { name: string; ok: boolean; exitCode: number; refusal?: { code: string; message: string } }[];
    };
    expect(document.ok).toBe(false);
    const [staging, production] = document.targets;
    expect(staging).toMatchObject({ name: 'staging', ok: true });
    expect(production).toMatchObject({ name: 'production', ok: false, refusal: { code: 'stale_plan' } });
    expect(production?.refusal?.message).toContain('production-only.example');
    expect(production?.exitCode).toBe(1);
    expect(validApplyTargets(document), JSON.stringify(validApplyTargets.errors)).toBe(true);
    const after = await fixture.ws.run(['plan', '--target', 'staging', '--detailed-exitcode']);
    expect(after.code).toBe(0);
  });

  it('refuses a single-target plan file when the configuration declares targets', async () => {
    fixture.ws.write('single.yaml', 'version: 1\nwebsites:\n  - domain: solo.example\n');
    const env = { SITESYNC_API_KEY: fixture.staging.key, SITESYNC_URL: fixture.staging.url };
    Object.assign(fixture.ws.env, env);
    expect((await fixture.ws.run(['plan', '-f', 'single.yaml', '--out', 'single.json'])).code).toBe(0);
    // A saved plan recalls its -f files: the targets' configuration is the one named here.
    const { code, err } = await fixture.ws.run(['apply', 'single.json', '-f', 'websites.yaml']);
    expect(code).toBe(1);
    expect(err).toContain('single.json was made without targets, but the configuration declares targets');
  });

  it('with --all-or-nothing, applies no target when one is stale', async () => {
    await fixture.ws.run(['plan', '--target', 'staging', '--target', 'production', '--out', 'plan.json']);
    await insertWebsite(fixture.production, 'production-only.example', { values: { email: 1 } });
    const applied = await fixture.ws.run(['apply', 'plan.json', '--all-or-nothing']);
    expect(applied.code).toBe(1);
    expect(applied.out).toContain('nothing applied (--all-or-nothing): target production cannot be applied');
    const after = await fixture.ws.run(['plan', '--target', 'staging', '--detailed-exitcode']);
    expect(after.code).toBe(2);
  });

  it('with --all-or-nothing and one target at a time, applies every target that passes (the barrier is a step)', async () => {
    const applied = await fixture.ws.run([
      'apply',
      '--auto-approve',
      '--all-or-nothing',
      '--target-parallelism',
      '1',
      '--target',
      'staging',
      '--target',
      'production',
    ]);
    expect(applied.code).toBe(0);
    const after = await fixture.ws.run([
      'plan',
      '--target',
      'staging',
      '--target',
      'production',
      '--detailed-exitcode',
    ]);
    expect(after.code).toBe(0);
  });
});

describe('validate over targets', () => {
  it("checks each target's merged configuration and names the target in each error", async () => {
    fixture.ws.write('production.yaml', 'version: 1\nwebsites:\n  - domain: shared.example\n');
    const { code, out } = await fixture.ws.run(['validate']);
    expect(code).toBe(1);
    expect(out).toMatch(/^\[production\] production\.yaml:3:\d+: .*shared\.example/m);
    expect(out).toMatch(/^\[staging\] .*valid \(2 websites/m);
    expect(out).toContain('targets: 3, invalid: production');
  });

  it('writes one JSON element per chosen target', async () => {
    const { code, out } = await fixture.ws.run(['validate', '--format', 'json', '--target', 'staging']);
    expect(code).toBe(0);
    const document = JSON.parse(out) as { valid: boolean; targets: { name: string; websites: number }[] };
    expect(document).toMatchObject({ valid: true, targets: [{ name: 'staging', websites: 2 }] });
    const validateSchema = new Ajv2020({ strict: true }).compile(
      JSON.parse(readFileSync('schemas/validate.schema.json', 'utf8')),
    );
    expect(validateSchema(document), JSON.stringify(validateSchema.errors)).toBe(true);
    expect(validateSchema({ ...document, targets: [{ name: 'staging' }] })).toBe(false);
  });
});

describe('command lines that cannot mean what they say', () => {
  it('refuses --url and --api-key-file when targets are declared: each target has its own', async () => {
    const { code, err } = await fixture.ws.run(['plan', '--url', fixture.staging.url]);
    expect(code).toBe(1);
    expect(err).toContain('--url cannot be used when the configuration declares targets');
  });

  it('refuses --target when the configuration declares no targets', async () => {
    fixture.ws.write('single.yaml', 'version: 1\nwebsites:\n  - domain: solo.example\n');
    const { code, err } = await fixture.ws.run(['validate', '-f', 'single.yaml', '--target', 'staging']);
    expect(code).toBe(1);
    expect(err).toContain('--target staging: the configuration declares no targets');
  });
});

describe('export over targets', () => {
  it("exports the one chosen target's websites with its URL and key", async () => {
    await insertWebsite(fixture.production, 'live-in-production.example');
    const { code, out } = await fixture.ws.run(['export', '--target', 'production']);
    expect(code).toBe(0);
    expect(out).toContain(`Exported from ${fixture.production.url}`);
    expect(out).toContain('- domain: live-in-production.example');
  });

  it('refuses a --target matching several targets: one file holds one installation', async () => {
    const { code, err } = await fixture.ws.run(['export', '--target', '*']);
    expect(code).toBe(1);
    expect(err).toContain('--target matches staging, production, broken; name one');
  });
});
