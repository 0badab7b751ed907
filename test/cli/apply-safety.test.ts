// Safety: a plan that breaks a rule is refused with exit 3 and the exact flags
// to acknowledge it; deletes are acknowledged per domain or by raising the limit,
// a suspected rename only by naming the old domain. No global --force.
import { describe, expect, test } from 'vitest';
import { domainsInDb } from '../apply/support.js';
import { insertWebsite } from '../helpers/server.js';
import { config, useCliFixture } from './apply-support.js';

const FIVE = { 'keep.example': '', 'd1.example': '', 'd2.example': '', 'd3.example': '', 'd4.example': '' };

describe('sitesync apply: safety', () => {
  const cli = useCliFixture({
    config: config(FIVE),
    before: async ({ ws }) => {
      expect((await ws.run(['apply', '--auto-approve'])).code).toBe(0);
      ws.write('websites.yaml', config({ 'keep.example': '' }, 'prune: true\n'));
    },
  });

  test('over-limit deletes are refused with exit 3 and the exact acknowledgement', async () => {
    const run = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', 'd1.example']);
    expect(run.code).toBe(3);
    expect(run.err).toBe(
      [
        'refusing to apply: the plan breaks 1 safety rule:',
        '  - 4 deletes exceed limits.max_deletes (3): d1.example, d2.example, d3.example, d4.example [max_deletes]',
        'To apply anyway:',
        '  - [max_deletes] name each deleted domain (its analytics history is lost): --allow-delete d2.example --allow-delete d3.example --allow-delete d4.example; or raise the delete limit: --max-deletes 4',
        '',
      ].join('\n'),
    );
    expect(await domainsInDb(cli.server)).toHaveLength(5);
  });

  test('naming every domain (globs allowed) acknowledges the deletes', async () => {
    const run = await cli.ws.run([
      'apply',
      '--auto-approve',
      '--allow-delete',
      'd1.example',
      '--allow-delete',
      'd[0-9]*',
    ]);
    expect(run.code).toBe(1); // `[` is not a glob character: a usage error, nothing applied
    expect(run.err).toBe('error: --allow-delete "d[0-9]*": not a domain or glob (letters, digits, . - _ * ?)\n');
    expect(await domainsInDb(cli.server)).toHaveLength(5);
    const ok = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', 'd?.example']);
    expect(ok.code).toBe(0);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('the Markdown plan (the PR comment) shows the sitesync-acknowledge: lines the apply on merge needs', async () => {
    const planned = await cli.ws.run(['plan', '--format', 'markdown']);
    expect(planned.code).toBe(3);
    expect(planned.out).toContain(
      [
        "To apply it on merge, add these lines to the pull request's description (one acknowledgement each):",
        '',
        '```text',
        'sitesync-acknowledge: --allow-delete d1.example',
        'sitesync-acknowledge: --allow-delete d2.example',
        'sitesync-acknowledge: --allow-delete d3.example',
        'sitesync-acknowledge: --allow-delete d4.example',
        '```',
      ].join('\n'),
    );
    // Exactly what the apply then accepts.
    const flags = [...planned.out.matchAll(/^sitesync-acknowledge: (--[a-z-]+) (\S+)$/gm)].flatMap((m) => [
      m[1]!,
      m[2]!,
    ]);
    expect((await cli.ws.run(['apply', '--auto-approve', ...flags])).code).toBe(0);
  });

  test('re-applying a fully applied saved plan needs no acknowledgement again: nothing left to do (exit 0)', async () => {
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(3);
    expect((await cli.ws.run(['apply', 'plan.json', '--max-deletes', '4'])).code).toBe(0);
    const again = await cli.ws.run(['apply', 'plan.json']);
    expect(again.code, again.err).toBe(0);
    expect(again.err).not.toContain('refusing');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('--max-deletes N acknowledges up to N deletes', async () => {
    expect((await cli.ws.run(['apply', '--auto-approve', '--max-deletes', '3'])).code).toBe(3);
    expect((await cli.ws.run(['apply', '--auto-approve', '--max-deletes', '4'])).code).toBe(0);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('a suspected rename needs the old domain named; a raised limit does not do', async () => {
    const { 'keep.example': _renamed, ...others } = FIVE;
    cli.ws.write('websites.yaml', config({ ...others, 'keep.org': '' }, 'prune: true\n'));
    const refused = await cli.ws.run(['apply', '--auto-approve', '--max-deletes', '10']);
    expect(refused.code).toBe(3);
    expect(refused.err).toContain('keep.example → keep.org looks like a rename');
    expect(refused.err).toContain(
      '  - [suspected_rename] name the old domain, exactly, to delete it (its analytics history is lost): --allow-delete keep.example\n',
    );
    const ok = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', 'keep.example']);
    expect(ok.code).toBe(0);
    expect((await domainsInDb(cli.server)).sort()).toEqual([
      'd1.example',
      'd2.example',
      'd3.example',
      'd4.example',
      'keep.org',
    ]);
  });

  test('too many sites updated: refused with --max-change-percent as the acknowledgement, not --allow-delete', async () => {
    const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`s${i + 10}.example`, '']));
    cli.ws.write('websites.yaml', config(twelve, 'prune: true\nlimits:\n  max_change_percent: 25\n'));
    const everyOld = Object.keys(FIVE).flatMap((domain) => ['--allow-delete', domain]);
    expect((await cli.ws.run(['apply', '--auto-approve', ...everyOld])).code).toBe(0);
    const changed = Object.fromEntries(
      Object.keys(twelve).map((domain, i) => [domain, i < 4 ? '    privacy: public\n' : '']),
    );
    cli.ws.write('websites.yaml', config(changed, 'prune: true\nlimits:\n  max_change_percent: 25\n'));
    const refused = await cli.ws.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.err).toBe(
      [
        'refusing to apply: the plan breaks 1 safety rule:',
        '  - 4 of the 12 in-scope websites (33.3%) would be updated or deleted: over limits.max_change_percent (25%) [max_change_percent]',
        'To apply anyway:',
        '  - [max_change_percent] raise the limit for this run: --max-change-percent 34',
        '',
      ].join('\n'),
    );
    const everyDomain = ['s10.example', 's11.example', 's12.example', 's13.example'].flatMap((d) => [
      '--allow-delete',
      d,
    ]);
    const notDeletes = await cli.ws.run(['apply', '--auto-approve', ...everyDomain]);
    expect(notDeletes.code).toBe(1); // updates are not deletes: --allow-delete names nothing planned
    expect(notDeletes.err).toBe(
      'error: --allow-delete s10.example, s11.example, s12.example, s13.example matches no planned delete (the plan deletes nothing)\n',
    );
    expect((await cli.ws.run(['apply', '--auto-approve', '--max-change-percent', '33'])).code).toBe(3);
    const ok = await cli.ws.run(['apply', '--auto-approve', '--max-change-percent', '34']);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('applied 4 of 4 changes');
  });

  test("a bare '*' is refused: there is no global force, not even for an empty configuration", async () => {
    cli.ws.write('websites.yaml', 'version: 1\nprune: true\nwebsites: []\n');
    const star = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', '*']);
    expect(star.code).toBe(1);
    expect(star.err).toBe(
      'error: --allow-delete * would acknowledge every delete: name each domain (or a narrower glob such as *.staging.example)\n',
    );
    const glob = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', '*.example', '--max-deletes', '9']);
    expect(glob.code).toBe(3); // the empty-configuration guard wants each exact domain
    expect(glob.err).toContain(
      '[empty_config_prune] name each domain to delete, exactly (its analytics history is lost): --allow-delete d1.example',
    );
    expect(await domainsInDb(cli.server)).toHaveLength(5);
  });

  test('typos are errors: an --allow-delete that names no planned delete, a percentage over 100, an --only that matches nothing', async () => {
    const typo = await cli.ws.run(['apply', '--auto-approve', '--allow-delete', 'typo.example', '--max-deletes', '4']);
    expect(typo.code).toBe(1);
    expect(typo.err).toBe(
      'error: --allow-delete typo.example matches no planned delete (the plan deletes d1.example, d2.example, d3.example, d4.example)\n',
    );
    const percent = await cli.ws.run(['apply', '--auto-approve', '--max-change-percent', '150']);
    expect(percent.code).toBe(1);
    expect(percent.err).toBe('error: --max-change-percent must be a whole number from 0 to 100, not "150"\n');
    for (const command of ['plan', 'apply']) {
      const only = await cli.ws.run(
        [command, '--only', 'nosuch.example', '--auto-approve'].slice(0, command === 'plan' ? 3 : 4),
      );
      expect(only.code).toBe(1);
      expect(only.err).toBe('error: --only nosuch.example matches no website in the configuration or the account\n');
    }
    expect(await domainsInDb(cli.server)).toHaveLength(5);
  });

  test('an apply with acknowledgements shows the violations as acknowledged, and one line acknowledges every rule', async () => {
    cli.ws.write(
      'websites.yaml',
      config({ 'keep.example': '    privacy: public\n' }, 'prune: true\nlimits:\n  max_change_percent: 30\n'),
    );
    for (let i = 0; i < 6; i++) await insertWebsite(cli.server, `pad${i}.example`);
    cli.ws.write(
      'websites.yaml',
      config(
        {
          'keep.example': '    privacy: public\n',
          ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`pad${i}.example`, ''])),
        },
        'prune: true\nlimits:\n  max_change_percent: 30\n',
      ),
    );
    const refused = await cli.ws.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(3);
    const allAtOnce = refused.err.split('\n').find((line) => line.startsWith('All at once: '));
    expect(allAtOnce).toBe(
      'All at once: --allow-delete d1.example --allow-delete d2.example --allow-delete d3.example --allow-delete d4.example',
    );
    const flags = (allAtOnce ?? '').slice('All at once: '.length).split(' ');
    const ok = await cli.ws.run(['apply', '--auto-approve', ...flags]);
    expect(ok.code).toBe(0);
    expect(ok.out).not.toContain('apply refuses this plan unless acknowledged');
    expect(ok.out).toContain(
      'max_deletes: 4 deletes exceed limits.max_deletes (3): d1.example, d2.example, d3.example, d4.example (acknowledged by --allow-delete d1.example --allow-delete d2.example --allow-delete d3.example --allow-delete d4.example)',
    );
    expect(ok.out).toMatch(/max_change_percent: .* \(acknowledged by --allow-delete d1\.example/);
    expect((await domainsInDb(cli.server)).sort()).toEqual([
      'keep.example',
      ...Array.from({ length: 6 }, (_, i) => `pad${i}.example`),
    ]);
  });
});
