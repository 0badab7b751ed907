// `sitesync apply plan.json`: no prompt; refused when stale (target, configuration,
// a touched site that moved); already-applied changes are skipped; one apply per file.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { planSignatureOf } from '../../src/api/connection.js';
import { Secret } from '../../src/model/secret.js';
import { parseSavedPlan, serializeSavedPlan, signSavedPlan } from '../../src/plan/saved-plan.js';
import { domainsInDb } from '../apply/support.js';
import { tempDirWith } from '../helpers/temp.js';
import { config, useCliFixture, type Workspace, workspace } from './apply-support.js';

/** `sitesync plan --out plan.json`; with `target`, the file then claims another service. */
async function savePlan(ws: Workspace, target?: string): Promise<void> {
  expect((await ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
  if (target === undefined) return;
  const path = join(ws.dir, 'plan.json');
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), target }));
}

describe('sitesync apply plan.json', () => {
  let onLog: (line: string) => void = () => {};
  const cli = useCliFixture({
    server: { log: (line) => onLog(line) },
    config: config({ 'keep.example': '    privacy: private\n' }),
    before: async ({ ws }) => {
      onLog = () => {};
      await ws.run(['apply', '--auto-approve']);
      ws.write('websites.yaml', config({ 'keep.example': '    privacy: public\n', 'new.example': '' }));
    },
  });

  test('applies a still-true plan without a prompt, off a terminal', async () => {
    await savePlan(cli.ws);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('applied 2 of 2 changes');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'new.example']);
  });

  test('the plan file records the -f files it was made from, and apply without -f uses them (issue 38, item 10)', async () => {
    cli.ws.write('prod.yaml', config({ 'keep.example': '    privacy: public\n', 'prod.example': '' }));
    expect((await cli.ws.run(['plan', '-f', 'prod.yaml', '--out', 'plan.json'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8')).files).toEqual(['prod.yaml']);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code, run.err).toBe(0);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'prod.example']);
    // An edited list is refused: it loads another configuration (and the signature covers the list).
    expect((await cli.ws.run(['plan', '-f', 'prod.yaml', '--out', 'plan.json'])).code).toBe(0);
    const path = join(cli.ws.dir, 'plan.json');
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), files: ['websites.yaml'] }));
    const edited = await cli.ws.run(['apply', 'plan.json']);
    expect(edited.code).toBe(1);
    expect(edited.err).toContain('the configuration changed since plan.json was made');
  });

  test("a plan file whose recorded files leave the working directory's root is refused before any is read", async () => {
    const outside = tempDirWith('saved-plan-outside', { 'shadow.yaml': 'root:$6$hashhashhash:19000:0:99999:7:::\n' });
    expect((await cli.ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const path = join(cli.ws.dir, 'plan.json');
    const files = [join(outside, 'shadow.yaml')];
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), files }));
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code, run.err).toBe(1);
    expect(run.err).toContain(`plan.json records ${files[0]}, which is outside the configuration's root`);
    expect(run.err + run.out).not.toContain('hashhash');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('a plan.json edited after plan wrote it is refused: the signature does not verify', async () => {
    await savePlan(cli.ws);
    const path = join(cli.ws.dir, 'plan.json');
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    for (const change of saved.plan.changes) change.after.email = true;
    writeFileSync(path, `${JSON.stringify(saved, null, 2)}\n`);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1); // refused as a stale plan is
    expect(run.err).toBe(
      'error: plan.json was modified after sitesync plan wrote it (its signature does not verify with this API key): make the plan again and review it\n',
    );
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  // Issue 23 item 14: `json.dump(plan, indent=2, sort_keys=True)` made the file "modified".
  test('a plan.json re-serialised with sorted keys and 4-space indentation still applies', async () => {
    await savePlan(cli.ws);
    const path = join(cli.ws.dir, 'plan.json');
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, `${JSON.stringify(sortedKeys(saved), null, 4)}\n`);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.err).not.toContain('error');
    expect(run.code).toBe(0);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'new.example']);
  });

  test('a plan.json edited and signed again with the same key is refused: apply plans again and compares', async () => {
    await savePlan(cli.ws);
    const path = join(cli.ws.dir, 'plan.json');
    const saved = parseSavedPlan(readFileSync(path, 'utf8'), 'plan.json');
    for (const change of saved.plan.changes) if (change.action !== 'delete') change.after.email = true;
    const key = new Secret(cli.server.key);
    writeFileSync(path, serializeSavedPlan(signSavedPlan(saved, (text) => planSignatureOf(key, text))));
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      [
        'error: plan.json does not match the plan that its configuration and recorded live state give (the file was edited): nothing was applied',
        '  new.example: email: the file says true, the configuration gives false',
        '  keep.example: email: the file says true, the configuration gives false',
        'Make the plan again (sitesync plan --out) and review it.\n',
      ].join('\n'),
    );
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('prints the plan before applying it', async () => {
    await savePlan(cli.ws);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.out).toMatch(/^sitesync plan for http:\/\/127\.0\.0\.1:\d+\n\n/);
    expect(run.out).toContain('+ new.example will be created\n');
    expect(run.out).toContain('Plan: 1 to create, 1 to update, 0 to delete; 0 unchanged.\napplied 2 of 2 changes');
  });

  test('--only, --skip and --sync-write-only are refused: a saved plan is applied exactly as reviewed', async () => {
    await savePlan(cli.ws);
    const only = await cli.ws.run(['apply', 'plan.json', '--only', 'new.example']);
    expect(only.code).toBe(1);
    expect(only.err).toBe(
      'error: --only cannot be used with a saved plan: plan.json is applied exactly as reviewed; make a new plan with it (sitesync plan --only new.example --out plan.json) and apply that\n',
    );
    const skip = await cli.ws.run(['apply', 'plan.json', '--skip', 'keep.example']);
    expect(skip.err).toContain('error: --skip cannot be used with a saved plan');
    const sync = await cli.ws.run(['apply', 'plan.json', '--sync-write-only']);
    expect(sync.err).toContain('error: --sync-write-only cannot be used with a saved plan');
    const fields = await cli.ws.run(['apply', 'plan.json', '--sync-write-only', 'exclude_params,keep.example']);
    expect(fields.err).toContain(
      'make a new plan with it (sitesync plan --sync-write-only exclude_params,keep.example --out plan.json)',
    );
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('a plan saved with a --sync-write-only selection keeps it as data and applies', async () => {
    expect((await cli.ws.run(['plan', '--sync-write-only', 'exclude_params', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8'));
    expect(saved.policy).toMatchObject({ syncWriteOnly: true, syncWriteOnlyFields: ['excludeParams'] });
    expect((await cli.ws.run(['apply', 'plan.json'])).code).toBe(0);
  });

  test("refuses a plan made with another account's key, naming the cause", async () => {
    await savePlan(cli.ws);
    const bob = await cli.server.createAccount();
    const bobs = workspace(cli.server, { SITESYNC_API_KEY: bob.key });
    bobs.write('websites.yaml', readFileSync(join(cli.ws.dir, 'websites.yaml'), 'utf8'));
    bobs.write('plan.json', readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8'));
    const run = await bobs.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    const keyId = JSON.parse(readFileSync(join(cli.ws.dir, 'plan.json'), 'utf8')).keyId;
    expect(keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(run.err).toBe(
      `error: plan.json was made with another API key (key id ${keyId}), so possibly for another account: apply it with the key it was made with, or run plan again with this key and review it\n`,
    );
    expect(await cli.server.server.store.countWebsites(bob.id)).toBe(0);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('refuses when a touched site moved, naming it and how; applies nothing', async () => {
    await savePlan(cli.ws);
    await cli.server.server.store.updateWebsite(cli.server.accountId, 1, { email: 1 }, new Date());
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      [
        'error: plan.json is stale: 1 site moved since it was made:',
        '  keep.example: changed since the plan was made (email: was false, now true)',
        'Nothing was applied. Run `sitesync plan --out plan.json` again and review the new plan.',
        '',
      ].join('\n'),
    );
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('--format json: a stale plan still prints one document, with the plan and the refusal', async () => {
    await savePlan(cli.ws);
    await cli.server.server.store.updateWebsite(cli.server.accountId, 1, { email: 1 }, new Date());
    const run = await cli.ws.run(['apply', 'plan.json', '--format', 'json']);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.out);
    expect(json).toMatchObject({ formatVersion: '3.0', ok: false, result: null, refusal: { code: 'stale_plan' } });
    expect(json.plan.summary).toMatchObject({ create: 1, update: 1 });
    expect(`error: ${json.refusal.message}\n`).toBe(run.err);
  });

  test('refuses when the configuration or the target changed', async () => {
    await savePlan(cli.ws, 'https://stats.example.com');
    const target = await cli.ws.run(['apply', 'plan.json']);
    expect(target.code).toBe(1);
    expect(target.err).toBe(`error: plan.json was made for https://stats.example.com, not ${cli.server.url}\n`);

    await savePlan(cli.ws);
    cli.ws.write(
      'websites.yaml',
      config({ 'keep.example': '    privacy: public\n', 'new.example': '    email: true\n' }),
    );
    const changed = await cli.ws.run(['apply', 'plan.json']);
    expect(changed.code).toBe(1);
    expect(changed.err).toContain('the configuration changed since plan.json was made');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example']);
  });

  test('a second apply of the same plan has nothing to do', async () => {
    await savePlan(cli.ws);
    expect((await cli.ws.run(['apply', 'plan.json'])).code).toBe(0);
    const again = await cli.ws.run(['apply', 'plan.json']);
    expect(again.code).toBe(0);
    expect(again.out).toContain('applied 0 of 2 changes; 2 skipped');
    // One line for the re-run, not one per site.
    expect(again.out).toMatch(/^already applied \(the live state matches the plan\): .*new\.example/m);
    expect(again.out).not.toContain('(create): already applied');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'new.example']);
  });

  test('two applies of the same plan at once: one applies, the other is refused', async () => {
    await savePlan(cli.ws);
    const runs = await Promise.all([cli.ws.run(['apply', 'plan.json']), cli.ws.run(['apply', 'plan.json'])]);
    expect(runs.map((run) => run.code).sort()).toEqual([0, 1]);
    const refused = runs.find((run) => run.code === 1);
    expect(refused?.err).toMatch(/plan\.json is being applied by another sitesync process \(pid \d+\)/);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'new.example']);
  });

  test('a lock left by a killed apply is taken over, and released at the end', async () => {
    await savePlan(cli.ws);
    const gone = spawnSync(process.execPath, ['-e', '']).pid; // a pid that no longer runs
    cli.ws.write('plan.json.lock', `${gone}\n`);
    const run = await cli.ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(0);
    expect(existsSync(join(cli.ws.dir, 'plan.json.lock'))).toBe(false);
  });

  test('an interrupted apply of a plan is finished by re-running it', async () => {
    cli.ws.write('websites.yaml', config({ 'keep.example': '', 'n1.example': '', 'n2.example': '', 'n3.example': '' }));
    await savePlan(cli.ws);
    const controller = new AbortController();
    onLog = (line) => line.includes('"POST"') && controller.abort();
    const first = await cli.ws.run(['apply', 'plan.json', '--parallelism', '1'], { signal: controller.signal });
    expect(first.code).toBe(130);
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'n1.example']);

    const rerun = await cli.ws.run(['apply', 'plan.json']);
    expect(rerun.code).toBe(0);
    expect(rerun.out).toContain('applied 2 of 3 changes; 1 skipped');
    expect(rerun.out).toContain('already applied (the live state matches the plan): n1.example\n');
    expect(await domainsInDb(cli.server)).toEqual(['keep.example', 'n1.example', 'n2.example', 'n3.example']);
  });
});

/** `value` with the keys of every object in sorted order, as `json.dump(…, sort_keys=True)` writes them. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, entry]) => [key, sortedKeys(entry)]));
}
