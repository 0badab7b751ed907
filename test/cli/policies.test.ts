// Policies end to end against the reference server: validate places a broken
// rule at file:line:column; plan shows each kind of violation in every format
// and exits 3 on an error; apply refuses until each error is acknowledged by
// exact name (and domain), a warning never blocks; a saved plan records the
// policies' results and digest, and is refused once the policies change; the
// acknowledgement lines the pull-request comment suggests are what apply takes.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain .mjs module of the CI scripts, without types
import { parseAcknowledgements } from '../../ci/lib/acknowledgements.mjs';
import { planSignatureOf } from '../../src/api/connection.js';
import { Secret } from '../../src/model/secret.js';
import { parseSavedPlan, serializeSavedPlan, signSavedPlan } from '../../src/plan/saved-plan.js';
import { domainsInDb } from '../apply/support.js';
import { insertWebsite } from '../helpers/server.js';
import { config, useCliFixture } from './apply-support.js';

const POLICIES = `policies:
  - name: exclude-bots
    match: { include: ["*.shop.example"] }
    rule: site.exclude_bots
    message: shop sites exclude bots
  - name: public-only-docs
    rule: site.privacy != "public" || site.domain.startsWith("docs.")
    message: only docs sites are public
    severity: warning
  - name: few-deletes
    rule: plan.deletes.size() <= 1
    message: more than one delete needs a second reviewer
`;

const EXAMPLE = resolve(import.meta.dirname, '../../examples/policies');

const SITES = {
  'a.shop.example': '    exclude_bots: false\n',
  'b.shop.example': '',
  'blog.example': '    privacy: public\n',
};

const planSchema = new Ajv2020({ strict: false }).compile(
  (await import('../../schemas/plan.schema.json', { with: { type: 'json' } })).default,
);

describe('policies', () => {
  const cli = useCliFixture({ config: config(SITES, POLICIES) });

  test('validate names a broken rule by file:line:column with a suggestion', async () => {
    cli.ws.write(
      'websites.yaml',
      config(
        SITES,
        'policies:\n  - name: bots\n    rule: |\n      site.domain != "" &&\n        site.exlude_bots\n    message: m\n',
      ),
    );
    const run = await cli.ws.run(['validate']);
    expect(run.code).toBe(1);
    expect(run.out).toBe(
      'websites.yaml:6:14: policies[0].rule exlude_bots is not a field of Site; did you mean exclude_bots?\ninvalid: 1 error, 0 warnings\n',
    );
    const planned = await cli.ws.run(['plan']);
    expect(planned.code).toBe(1);
    expect(planned.err).toContain('websites.yaml:6:14: policies[0].rule exlude_bots is not a field of Site');
  });

  test('plan shows the broken site rules and exits 3 on an error; the JSON and Markdown carry the same', async () => {
    const human = await cli.ws.run(['plan']);
    expect(human.code).toBe(3);
    expect(human.out).toContain(
      [
        'Policy errors (apply refuses this plan unless acknowledged):',
        '  ✗ exclude-bots (a.shop.example): shop sites exclude bots',
        'Policy warnings (shown, never blocking):',
        '  ! public-only-docs (blog.example): only docs sites are public',
        'Policies: 3 checked, 2 broken (1 error, 1 warning).',
      ].join('\n'),
    );
    const json = await cli.ws.run(['plan', '--format', 'json']);
    const document = JSON.parse(json.out);
    expect(planSchema(document), JSON.stringify(planSchema.errors)).toBe(true);
    expect(document).toMatchObject({ formatVersion: '2.2', safe: false });
    expect(document.policies).toEqual({
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      evaluated: 3,
      violations: [
        {
          policy: 'exclude-bots',
          kind: 'site',
          severity: 'error',
          domain: 'a.shop.example',
          message: 'shop sites exclude bots',
        },
        {
          policy: 'public-only-docs',
          kind: 'site',
          severity: 'warning',
          domain: 'blog.example',
          message: 'only docs sites are public',
        },
      ],
    });
    const markdown = await cli.ws.run(['plan', '--format', 'markdown']);
    expect(markdown.out).toContain(
      [
        '**Policy violations** (an error blocks the apply on merge unless acknowledged; a warning never does):',
        '',
        '- ❌ **error** exclude-bots (a.shop.example): shop sites exclude bots',
        '- ⚠️ warning public-only-docs (blog.example): only docs sites are public',
        '',
        'Policies: 3 checked, 2 broken (1 error, 1 warning).',
        '',
        "To apply it on merge, add these lines to the pull request's description (one acknowledgement each):",
        '',
        '```text',
        'sitesync-acknowledge: --allow-policy exclude-bots:a.shop.example',
        '```',
      ].join('\n'),
    );
    // The reviewer copies the lines into the description; the apply on merge reads them (ci/lib) and passes them.
    const description = `Open the shop.\n\n${markdown.out.split('```text\n')[1]?.split('\n```')[0]}\n`;
    const { flags, rejected } = parseAcknowledgements(description);
    expect(rejected).toEqual([]);
    expect(flags).toEqual(['--allow-policy', 'exclude-bots:a.shop.example']);
    const applied = await cli.ws.run(['apply', '--auto-approve', ...flags]);
    expect(applied.code, applied.err).toBe(0);
  });

  test('apply refuses an unacknowledged error (exit 3, nothing written); the exact name and domain let it through', async () => {
    const refused = await cli.ws.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.err).toBe(
      [
        'refusing to apply: the plan breaks 1 error policy:',
        '  - exclude-bots (a.shop.example): shop sites exclude bots',
        'To apply anyway:',
        '  - [exclude-bots] acknowledge it by name: --allow-policy exclude-bots:a.shop.example',
        '',
      ].join('\n'),
    );
    expect(await domainsInDb(cli.server)).toEqual([]);
    const typo = await cli.ws.run(['apply', '--auto-approve', '--allow-policy', 'exclude-bots:b.shop.example']);
    expect(typo.code).toBe(1);
    expect(typo.err).toBe(
      'error: --allow-policy exclude-bots:b.shop.example names no broken error policy (the plan breaks exclude-bots:a.shop.example)\n',
    );
    const glob = await cli.ws.run(['apply', '--auto-approve', '--allow-policy', 'exclude-bots:*.shop.example']);
    expect(glob.code).toBe(1);
    expect(glob.err).toContain('expected NAME:DOMAIN (a rule over a website) or NAME (a rule over the plan), exactly');
    const applied = await cli.ws.run(['apply', '--auto-approve', '--allow-policy', 'exclude-bots:a.shop.example']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain(
      '  ! exclude-bots (a.shop.example): shop sites exclude bots (acknowledged by --allow-policy exclude-bots:a.shop.example)',
    );
    expect(await domainsInDb(cli.server)).toEqual(['a.shop.example', 'b.shop.example', 'blog.example']);
  });

  test('--allow-policy reads its domain as every domain flag does: any spelling of the site names it', async () => {
    const applied = await cli.ws.run(['apply', '--auto-approve', '--allow-policy', 'exclude-bots:WWW.A.Shop.Example.']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('(acknowledged by --allow-policy exclude-bots:a.shop.example)');
    expect(await domainsInDb(cli.server)).toEqual(['a.shop.example', 'b.shop.example', 'blog.example']);
  });

  test('a rule over the plan is acknowledged by its name alone; a warning never blocks', async () => {
    for (const domain of ['old1.example', 'old2.example']) await insertWebsite(cli.server, domain);
    cli.ws.write('websites.yaml', config({ 'blog.example': '    privacy: public\n' }, `prune: true\n${POLICIES}`));
    const refused = await cli.ws.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.err).toContain('  - [few-deletes] acknowledge it by name: --allow-policy few-deletes\n');
    const applied = await cli.ws.run(['apply', '--auto-approve', '--allow-policy', 'few-deletes']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('Policy warnings (shown, never blocking):');
    expect(await domainsInDb(cli.server)).toEqual(['blog.example']);
  });

  test('examples/policies plans clean on its own; four websites left outside it break few-deletes', async () => {
    for (const file of ['websites.yaml', 'policies.yaml'])
      cli.ws.write(file, readFileSync(join(EXAMPLE, file), 'utf8'));
    const clean = await cli.ws.run(['plan', '-f', '.']);
    expect(clean.code, clean.err).toBe(0);
    expect(clean.out).toContain('Policies: 5 checked, none broken.');
    expect((await cli.ws.run(['apply', '-f', '.', '--auto-approve'])).code).toBe(0);
    for (const n of [1, 2, 3, 4]) await insertWebsite(cli.server, `old${n}.acme.example`);
    const pruning = await cli.ws.run(['plan', '-f', '.', '--format', 'json']);
    expect(pruning.code).toBe(3);
    expect(JSON.parse(pruning.out).policies.violations).toEqual([
      {
        policy: 'few-deletes',
        kind: 'plan',
        severity: 'error',
        message: 'more than three deletes in one plan need a second reviewer',
      },
    ]);
  });

  test('a saved plan records the results and the digest; made under other policies, it is refused at apply', async () => {
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(3);
    const saved = JSON.parse(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8'));
    expect(saved.policiesDigest).toMatch(/^sha256:/);
    expect(saved.plan.policies.digest).toBe(saved.policiesDigest);
    expect(saved.plan.policies.violations.map((v: { policy: string }) => v.policy)).toEqual([
      'exclude-bots',
      'public-only-docs',
    ]);
    cli.ws.write('websites.yaml', config(SITES, POLICIES.replace('more than one delete', 'two deletes or more')));
    const stale = await cli.ws.run(['apply', 'plan.json', '--allow-policy', 'exclude-bots:a.shop.example']);
    expect(stale.code).toBe(1);
    expect(stale.err).toBe(
      'error: the policies changed since plan.json was made (it was checked against other rules): run plan again and review it\n',
    );
    expect(await domainsInDb(cli.server)).toEqual([]);

    cli.ws.write('websites.yaml', config(SITES, POLICIES));
    const unacknowledged = await cli.ws.run(['apply', 'plan.json']);
    expect(unacknowledged.code).toBe(3);
    const applied = await cli.ws.run(['apply', 'plan.json', '--allow-policy', 'exclude-bots:a.shop.example']);
    expect(applied.code, applied.err).toBe(0);
    expect(await domainsInDb(cli.server)).toHaveLength(3);
  });

  test('a saved plan whose results were edited (and signed again) is refused: apply evaluates the policies again', async () => {
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(3);
    const saved = parseSavedPlan(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8'), 'plan.json');
    saved.plan.policies!.violations = [];
    const key = new Secret(cli.server.key);
    cli.ws.write('plan.json', serializeSavedPlan(signSavedPlan(saved, (text) => planSignatureOf(key, text))));
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^error: plan.json does not match the plan that its configuration and recorded live state give \(the file was edited\): nothing was applied\n {2}policies: /,
    );
    expect(await domainsInDb(cli.server)).toEqual([]);
  });
});
