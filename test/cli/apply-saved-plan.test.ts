// `sitesync apply plan.json`: no prompt; refused when stale (target, configuration,
// a touched site that moved); already-applied changes are skipped; one apply per file.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { domainsInDb } from '../apply/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

/** `sitesync plan --out plan.json`; with `target`, the file then claims another service. */
async function savePlan(ws: Workspace, target?: string): Promise<void> {
  expect((await ws.run(['plan', '--out', 'plan.json'])).code).toBe(0);
  if (target === undefined) return;
  const path = join(ws.dir, 'plan.json');
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), target }));
}

describe('sitesync apply plan.json', () => {
  let server: TestServer;
  let ws: Workspace;
  let onLog: (line: string) => void;
  beforeEach(async () => {
    onLog = () => {};
    server = await startTestServer({ log: (line) => onLog(line) });
    ws = workspace(server);
    ws.write('websites.yaml', config({ 'keep.example': '    privacy: private\n' }));
    await ws.run(['apply', '--auto-approve']);
    ws.write('websites.yaml', config({ 'keep.example': '    privacy: public\n', 'new.example': '' }));
  });
  afterEach(() => server.close());

  test('applies a still-true plan without a prompt, off a terminal', async () => {
    await savePlan(ws);
    const run = await ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('applied 2 of 2 changes');
    expect(domainsInDb(server)).toEqual(['keep.example', 'new.example']);
  });

  test('refuses when a touched site moved, naming it and how; applies nothing', async () => {
    await savePlan(ws);
    server.server.store.updateWebsite(server.accountId, 1, { email: 1 }, new Date());
    const run = await ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      [
        'error: plan.json is stale: 1 site moved since it was made:',
        '  keep.example: changed since the plan was made (email: was false, now true)',
        'Nothing was applied. Run `sitesync plan --out plan.json` again and review the new plan.',
        '',
      ].join('\n'),
    );
    expect(domainsInDb(server)).toEqual(['keep.example']);
  });

  test('refuses when the configuration or the target changed', async () => {
    await savePlan(ws, 'https://stats.example.com');
    const target = await ws.run(['apply', 'plan.json']);
    expect(target.code).toBe(1);
    expect(target.err).toBe(`error: plan.json was made for https://stats.example.com, not ${server.url}\n`);

    await savePlan(ws);
    ws.write('websites.yaml', config({ 'keep.example': '    privacy: public\n', 'new.example': '    email: true\n' }));
    const changed = await ws.run(['apply', 'plan.json']);
    expect(changed.code).toBe(1);
    expect(changed.err).toContain('the configuration changed since plan.json was made');
    expect(domainsInDb(server)).toEqual(['keep.example']);
  });

  test('a second apply of the same plan has nothing to do', async () => {
    await savePlan(ws);
    expect((await ws.run(['apply', 'plan.json'])).code).toBe(0);
    const again = await ws.run(['apply', 'plan.json']);
    expect(again.code).toBe(0);
    expect(again.out).toContain('applied 0 of 2 changes; 2 skipped');
    expect(again.out).toContain('  new.example (create): already applied: the live state matches the plan');
    expect(domainsInDb(server)).toEqual(['keep.example', 'new.example']);
  });

  test('two applies of the same plan at once: one applies, the other is refused', async () => {
    await savePlan(ws);
    const runs = await Promise.all([ws.run(['apply', 'plan.json']), ws.run(['apply', 'plan.json'])]);
    expect(runs.map((run) => run.code).sort()).toEqual([0, 1]);
    const refused = runs.find((run) => run.code === 1);
    expect(refused?.err).toMatch(/plan\.json is being applied by another sitesync process \(pid \d+\)/);
    expect(domainsInDb(server)).toEqual(['keep.example', 'new.example']);
  });

  test('a lock left by a killed apply is taken over, and released at the end', async () => {
    await savePlan(ws);
    const gone = spawnSync(process.execPath, ['-e', '']).pid; // a pid that no longer runs
    ws.write('plan.json.lock', `${gone}\n`);
    const run = await ws.run(['apply', 'plan.json']);
    expect(run.code).toBe(0);
    expect(existsSync(join(ws.dir, 'plan.json.lock'))).toBe(false);
  });

  test('an interrupted apply of a plan is finished by re-running it', async () => {
    ws.write('websites.yaml', config({ 'keep.example': '', 'n1.example': '', 'n2.example': '', 'n3.example': '' }));
    await savePlan(ws);
    const controller = new AbortController();
    onLog = (line) => line.includes('"POST"') && controller.abort();
    const first = await ws.run(['apply', 'plan.json', '--parallelism', '1'], { signal: controller.signal });
    expect(first.code).toBe(130);
    expect(domainsInDb(server)).toEqual(['keep.example', 'n1.example']);

    const rerun = await ws.run(['apply', 'plan.json']);
    expect(rerun.code).toBe(0);
    expect(rerun.out).toContain('applied 2 of 3 changes; 1 skipped');
    expect(rerun.out).toContain('  n1.example (create): already applied: the live state matches the plan');
    expect(domainsInDb(server)).toEqual(['keep.example', 'n1.example', 'n2.example', 'n3.example']);
  });
});
