// Issue 16 item 16: `plan --format json` and `apply --format json` write one JSON
// document on stdout in every case (errors too), and every document the
// commands really print validates against the schema shipped for it.

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { CLIENT_DEFAULTS, createClient } from '../../src/api/index.js';
import { renderApplyJson } from '../../src/render/apply-result.js';
import { PLAN_FORMAT_VERSION, planDocument } from '../../src/render/json.js';
import { manualClock } from '../helpers/manual-clock.js';
import { fixturePlan } from '../render/fixture.js';
import { config, type Run, useCliFixture, workspace } from './apply-support.js';

const load = (name: string) => JSON.parse(readFileSync(`schemas/${name}.schema.json`, 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(load('plan'));
const schemas = {
  plan: ajv.getSchema('https://sitesync.dev/schemas/plan.schema.json'),
  apply: ajv.compile(load('apply')),
  validate: ajv.compile(load('validate')),
};

/** The run's stdout is exactly one document that its schema accepts; returns it. */
function documentOf(run: Run, schema: keyof typeof schemas): Record<string, unknown> {
  const document = JSON.parse(run.out);
  const validate = schemas[schema];
  if (validate === undefined) throw new Error('schema not loaded');
  validate(document);
  expect(validate.errors ?? []).toEqual([]);
  return document;
}

const SITES = config({ 'a.example': '', 'b.example': '    privacy: private\n' });

describe('plan --format json', () => {
  const cli = useCliFixture({ config: SITES });

  test('a plan is a plan document', async () => {
    const run = await cli.ws.run(['plan', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(documentOf(run, 'plan')).toMatchObject({ formatVersion: PLAN_FORMAT_VERSION, hasChanges: true });
  });

  test('an invalid configuration is an error document listing every problem', async () => {
    cli.ws.write('websites.yaml', 'version: 1\nwebsites:\n  - domain: "a b"\n');
    const run = await cli.ws.run(['plan', '--format', 'json']);
    expect(run.code).toBe(1);
    const document = documentOf(run, 'plan');
    expect(document).toMatchObject({ formatVersion: PLAN_FORMAT_VERSION, error: { code: 'config' } });
    expect(document.error).toMatchObject({ problems: [{ path: 'websites[0].domain', line: 3 }] });
    expect(run.err).toContain('error: the configuration is invalid (1 problem)');
  });

  test.each([
    ['a bad option value, read by the command', ['--rate-limit', 'many'], 'usage'],
    ['an unknown option, refused by the parser', ['--bogus'], 'usage'],
    ['an --only that matches nothing', ['--only', 'nosuch.example'], 'usage'],
    ['a --sync-write-only site that matches nothing', ['--sync-write-only', 'nosuch.example'], 'usage'],
    ['a --sync-write-only word that is neither field nor site', ['--sync-write-only', 'no way!'], 'usage'],
    ['a --baseline outside a git work tree', ['--baseline', 'sitesync-applied'], 'config'],
  ])('%s is an error document', async (_name, args, code) => {
    const run = await cli.ws.run(['plan', '--format', 'json', ...args]);
    expect(run.code).toBe(1);
    expect(documentOf(run, 'plan')).toMatchObject({ formatVersion: PLAN_FORMAT_VERSION, error: { code } });
  });

  test('a password --sync-write-only re-sends whose variable is unset is an error document', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
    const site = '    privacy: password\n    password: ${SITESYNC_UNSET_PASSWORD_VARIABLE}\n';
    cli.ws.write('websites.yaml', config({ 'a.example': site }));
    const run = await cli.ws.run(['plan', '--format', 'json', '--sync-write-only', 'password']);
    expect(run.code).toBe(1);
    expect(documentOf(run, 'plan')).toMatchObject({ formatVersion: PLAN_FORMAT_VERSION, error: { code: 'config' } });
  });

  test('a rejected key and an unreachable service are error documents', async () => {
    const wrongKey = workspace(cli.server, { SITESYNC_API_KEY: 'not-the-key-0123456789' });
    wrongKey.write('websites.yaml', SITES);
    const auth = await wrongKey.run(['plan', '--format', 'json']);
    expect(auth.code).toBe(1);
    expect(documentOf(auth, 'plan')).toMatchObject({ error: { code: 'auth' } });
    const closed = workspace(cli.server, { SITESYNC_URL: 'http://127.0.0.1:9' });
    closed.write('websites.yaml', SITES);
    // Every retry of the client still happens, on a manual clock: the backoff takes no time.
    const clock = manualClock();
    const network = await closed.run(['plan', '--format', 'json'], {
      openApi: (settings) => createClient({ ...settings, clock }),
    });
    expect(clock.sleeps).toHaveLength(CLIENT_DEFAULTS.retry.maxAttempts - 1);
    expect(network.code).toBe(1);
    expect(documentOf(network, 'plan')).toMatchObject({ error: { code: 'network' } });
  });
});

describe('apply --format json', () => {
  const cli = useCliFixture({ config: SITES });

  test('a result, then nothing to do: apply documents', async () => {
    const applied = await cli.ws.run(['apply', '--format', 'json', '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(documentOf(applied, 'apply')).toMatchObject({ ok: true, refusal: null, error: null });
    const again = await cli.ws.run(['apply', '--format', 'json', '--auto-approve']);
    expect(documentOf(again, 'apply')).toMatchObject({ ok: true, result: null, error: null });
  });

  test('a safety refusal and a stale saved plan are refusals', async () => {
    await cli.ws.run(['apply', '--auto-approve']);
    cli.ws.write('websites.yaml', config({ 'a.example': '' }, 'prune: true\nlimits:\n  max_deletes: 0\n'));
    const unsafe = await cli.ws.run(['apply', '--format', 'json', '--auto-approve']);
    expect(unsafe.code).toBe(3);
    expect(documentOf(unsafe, 'apply')).toMatchObject({ ok: false, refusal: { code: 'unsafe_plan' } });
    cli.ws.write('websites.yaml', SITES.replace('privacy: private', 'privacy: public'));
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    await cli.server.server.store.updateWebsite(cli.server.accountId, 2, { email: 1 }, new Date());
    const stale = await cli.ws.run(['apply', '--format', 'json', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(documentOf(stale, 'apply')).toMatchObject({ ok: false, refusal: { code: 'stale_plan' }, error: null });
  });

  test.each([
    ['an invalid configuration', ['--auto-approve'], 'config', 'version: 2\n'],
    ['--allow-delete *', ['--auto-approve', '--allow-delete', '*'], 'usage', undefined],
    ['an unknown option', ['--bogus'], 'usage', undefined],
    ['no terminal and no --auto-approve', [], 'usage', undefined],
    ['a saved plan that does not exist', ['missing.json'], 'usage', undefined],
    [
      'a --sync-write-only site that matches nothing',
      ['--auto-approve', '--sync-write-only', 'x.example'],
      'usage',
      undefined,
    ],
  ])('%s is an error document', async (_name, args, code, text) => {
    if (text !== undefined) cli.ws.write('websites.yaml', text);
    const run = await cli.ws.run(['apply', '--format', 'json', ...args]);
    expect(run.code).toBe(1);
    expect(documentOf(run, 'apply')).toMatchObject({ formatVersion: '3.0', ok: false, error: { code } });
  });

  test('an error after planning carries the plan', async () => {
    const run = await cli.ws.run(['apply', '--format', 'json', '--auto-approve', '--allow-delete', 'typo.example']);
    expect(run.code).toBe(1);
    const document = documentOf(run, 'apply');
    expect(document).toMatchObject({ ok: false, error: { code: 'usage' }, result: null });
    expect(document.plan).toMatchObject({ formatVersion: PLAN_FORMAT_VERSION, hasChanges: true });
  });
});

describe('validate --format json', () => {
  const cli = useCliFixture({ config: SITES });

  test('valid and invalid configurations validate against schemas/validate.schema.json', async () => {
    const valid = await cli.ws.run(['validate', '--format', 'json']);
    expect(documentOf(valid, 'validate')).toMatchObject({ valid: true, websites: 2 });
    cli.ws.write('websites.yaml', 'version: 1\nwebsites:\n  - domain: "a b"\n    nosuch: 1\n');
    const invalid = await cli.ws.run(['validate', '--format', 'json']);
    expect(invalid.code).toBe(1);
    expect(documentOf(invalid, 'validate')).toMatchObject({ valid: false, digest: null });
  });

  test('sitesync schema NAME prints each shipped schema', async () => {
    for (const name of ['plan', 'plan-targets', 'validate', 'apply', 'apply-targets', 'websites']) {
      const run = await cli.ws.run(['schema', name]);
      expect(run).toEqual({ code: 0, out: readFileSync(`schemas/${name}.schema.json`, 'utf8'), err: '' });
    }
    expect((await cli.ws.run(['schema', 'nosuch'])).code).toBe(1);
  });
});

describe('schemas/apply.schema.json', () => {
  test('accepts a result with read-back divergences (worded in detail)', () => {
    const text = renderApplyJson({
      plan: planDocument(fixturePlan()),
      ok: false,
      result: {
        changes: [{ action: 'update', domain: 'a.example', id: 1, outcome: 'applied' }],
        counts: { applied: 1, failed: 0, skipped: 0, total: 1 },
        interrupted: false,
        verification: {
          status: 'checked',
          divergences: [
            { domain: 'a.example', kind: 'field', field: 'email', wanted: true, actual: false, otherWriter: true },
            { domain: 'a.example', kind: 'field', field: 'password' },
            { domain: 'gone.example', kind: 'still_exists' },
          ],
        },
        requests: 4,
        elapsedMs: 12,
      },
    });
    const document = documentOf({ code: 1, out: text, err: '' }, 'apply');
    expect(JSON.stringify(document)).toContain('"detail":"email: wanted true, is false"');
    expect(JSON.stringify(document)).toContain('"detail":"password: not set"');
  });
});
