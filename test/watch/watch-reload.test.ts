/**
 * Incremental reload (issue 34): a cycle reads again only the files that
 * changed and loads again only the targets they feed (counted by
 * sitesync_target_config_loads_total); a target whose own file stops
 * validating keeps its last good state and is marked alone (/status, the
 * metric), while the others and the fleet's configuration stay valid; the
 * root file feeds every target.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../helpers/prometheus-text.js';
import { insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { allowedOrigins, keyVariable } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';
import { MINUTE, useCleanups, watchClock, watchInProcess } from './support.js';

const NAMES = ['north', 'south', 'west'] as const;
const cleanups = useCleanups();

const sitesFile = (name: string, count: number) =>
  `version: 1\nwebsites:\n${Array.from({ length: count }, (_, i) => `  - domain: s${i}.${name}.example\n`).join('')}`;

async function fleet() {
  const server = await startTestServer();
  cleanups.push(() => server.close());
  const dir = tempDir('watch-reload');
  const env: Record<string, string> = { SITESYNC_ALLOWED_ORIGINS: allowedOrigins([server]) };
  const declared: string[] = [];
  for (const name of NAMES) {
    const account = await server.createAccount();
    env[keyVariable(name)] = account.key;
    for (let i = 0; i < 3; i++)
      await insertWebsite(server, `s${i}.${name}.example`, { accountId: account.id, values: STORED_DEFAULTS });
    writeFileSync(join(dir, `${name}.yaml`), sitesFile(name, 3));
    declared.push(`  - { name: ${name}, url: "${server.url}", key_env: ${keyVariable(name)}, files: [${name}.yaml] }`);
  }
  const root = (extra = '') =>
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\ndefaults:\n  privacy: private\n${extra}targets:\n${declared.join('\n')}\n`,
    );
  root();
  const watch = await watchInProcess({
    source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: false },
    intervalMs: MINUTE,
    budgetPerMinute: 20,
    renotifyMs: 24 * 60 * MINUTE,
    webhooks: [],
    clock: watchClock(Date.parse('2026-07-06T08:00:00Z')),
  });
  cleanups.push(() => watch.close());
  const loads = async () => {
    const metrics = parseExposition(await watch.metrics.text());
    return NAMES.map((target) => metrics.find('sitesync_target_config_loads_total', { target })[0]?.value);
  };
  return { dir, watch, root, loads };
}

describe('incremental reload', () => {
  it('loads again only the target whose file changed, and every target when the root changes', async () => {
    const { dir, watch, root, loads } = await fleet();
    await watch.run(2);
    expect(await loads()).toEqual([1, 1, 1]); // the second cycle read nothing again
    writeFileSync(join(dir, 'south.yaml'), sitesFile('south', 2));
    await watch.run(3);
    expect(await loads()).toEqual([1, 2, 1]);
    const counts = watch.watcher.status().targets.map((target) => [target.target, target.counts?.unmanaged]);
    expect(counts).toEqual([
      ['north', 0],
      ['south', 1], // s2.south.example is no longer configured
      ['west', 0],
    ]);
    root('prune: false\n');
    await watch.run(4);
    expect(await loads()).toEqual([2, 3, 2]);
  });

  it("keeps a target's last good state when its file stops validating, and marks that target only", async () => {
    const { dir, watch, loads } = await fleet();
    await watch.run(1);
    writeFileSync(join(dir, 'west.yaml'), `${sitesFile('west', 3)}  - domain: [broken\n`);
    await watch.run(3);
    const status = watch.watcher.status();
    expect(status.config).toEqual({ ok: true });
    const west = status.targets.find((target) => target.target === 'west')!;
    expect(west.config).toMatchObject({ ok: false, error: expect.stringMatching(/west\.yaml:\d+:\d+/) });
    expect(west.lastCheck?.result).toBe('success'); // still checked, against its last good state
    expect(west.counts?.in_sync).toBe(3);
    expect(status.targets.filter((target) => target.config.ok).map((target) => target.target)).toEqual([
      'north',
      'south',
    ]);
    const metrics = parseExposition(await watch.metrics.text());
    expect(NAMES.map((target) => metrics.find('sitesync_target_config_valid', { target })[0]?.value)).toEqual([
      1, 1, 0,
    ]);
    expect(await loads()).toEqual([1, 1, 2]); // the broken file was read once, not every cycle
    expect(watch.lines.filter((line) => String(line.msg).startsWith('target configuration invalid'))).toHaveLength(1);

    writeFileSync(join(dir, 'west.yaml'), sitesFile('west', 3));
    await watch.run(4);
    expect(watch.watcher.status().targets.every((target) => target.config.ok)).toBe(true);
    expect(watch.lines.filter((line) => line.msg === 'target configuration valid again')).toHaveLength(1);
  });
});
