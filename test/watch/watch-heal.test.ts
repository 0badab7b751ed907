/**
 * Self-heal (issue 26): opt-in, repairs drift made through the API, at most
 * --max-heal changes a cycle, never a delete unless that exact domain is
 * acknowledged, only inside its window, journaled and counted; repeated
 * failures stop it with an alert. And a configuration that stops validating
 * keeps the last good one. Real reference server, manual clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryJournal } from '../../src/apply/journal.js';
import type { HealPolicy } from '../../src/watch/index.js';
import { parseWindow, type Window } from '../../src/watch/window.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MINUTE, useCleanups, watchClock, watchInProcess, watchOneAccount } from './support.js';

const MONDAY_NOON = Date.parse('2026-07-06T12:00:00Z');
const cleanups = useCleanups();

const CONFIG = `version: 1
prune: true
limits: { max_deletes: 5 }
defaults:
  privacy: private
websites:
  - domain: a.example
  - domain: b.example
  - domain: d.example
    exclude_params: [ref] # unlike c.example: no suspected rename
`;

/** a and b live as configured, c live but not configured (a delete), d configured but missing (a create). */
async function drifted(options: { policy?: Partial<HealPolicy>; websiteLimit?: number } = {}) {
  const server = await startTestServer();
  cleanups.push(() => server.close());
  const ids: Record<string, number> = {};
  for (const domain of ['a.example', 'b.example', 'c.example'])
    ids[domain] = await insertWebsite(server, domain, { values: STORED_DEFAULTS });
  if (options.websiteLimit !== undefined)
    await server.setAccount(server.accountId, { websiteLimit: options.websiteLimit });
  const dir = tempDir('watch-heal');
  writeFileSync(join(dir, 'websites.yaml'), CONFIG);
  await client(server)('PATCH', `/api/v1/websites/${ids['a.example']}`, { form: { privacy: '0' } });
  const journal = memoryJournal();
  const clock = watchClock(MONDAY_NOON);
  const watch = await watchOneAccount(server, dir, cleanups, {
    heal: { mode: 'drift', maxPerCycle: 5, allowDelete: [], windows: [], maxFailures: 3, ...options.policy },
    clock,
    journal,
  });
  return { server, dir, watch, journal, clock };
}

async function liveDomains(server: TestServer): Promise<string[]> {
  const listed = await client(server)('GET', '/api/v1/websites?per_page=100');
  return listed.body.data.map((site: { domain: string }) => site.domain).sort();
}

const healed = (watch: Awaited<ReturnType<typeof drifted>>['watch']) =>
  watch.lines
    .filter((line) => String(line.msg).startsWith('self-heal'))
    .map((line) => [line.action, line.domain, line.result]);

const windowOf = (text: string): Window => parseWindow(text) as Window;

describe('self-heal', () => {
  it('repairs drift one change a cycle with --max-heal 1, and never deletes an unacknowledged domain', async () => {
    const { server, watch, journal } = await drifted({ policy: { maxPerCycle: 1 } });
    await watch.run(1);
    expect(healed(watch)).toEqual([['update', 'a.example', 'applied']]);
    await watch.run(3);
    expect(healed(watch)).toEqual([
      ['update', 'a.example', 'applied'],
      ['create', 'd.example', 'applied'],
    ]);
    expect(await liveDomains(server)).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
    const status = watch.watcher.status().targets[0]!;
    expect(status.counts?.in_sync).toBe(3); // a, b and d: counted, not listed
    expect(status.sites?.drift).toEqual(['c.example']); // the delete waits for a person
    // The status page's last heals: newest first, each with its time.
    expect(status.recentHeals.map((heal) => [heal.action, heal.domain, heal.result])).toEqual([
      ['create', 'd.example', 'applied'],
      ['update', 'a.example', 'applied'],
    ]);
    const [created, updated] = status.recentHeals.map((heal) => Date.parse(heal.at));
    expect(updated).toBe(MONDAY_NOON); // the first cycle's
    expect(created).toBeGreaterThan(MONDAY_NOON);
    const text = await watch.metrics.text();
    expect(text).toContain('sitesync_self_heal_changes_total{target="default",action="update",result="applied"} 1');
    expect(text).toContain('sitesync_self_heal_changes_total{target="default",action="create",result="applied"} 1');
    expect(text).toContain('sitesync_self_heal_changes_total{target="default",action="delete",result="applied"} 0');
    expect(journal.entries.filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain)).toEqual([
      'a.example',
      'd.example',
    ]);
  });

  it('deletes a domain named with --allow-delete', async () => {
    const { server, watch } = await drifted({ policy: { allowDelete: ['c.example'] } });
    await watch.run(2);
    expect(await liveDomains(server)).toEqual(['a.example', 'b.example', 'd.example']);
    expect(watch.watcher.status().targets[0]?.counts).toMatchObject({ in_sync: 3, drift: 0, unmanaged: 0 });
  });

  it('heals nothing outside its window, and heals once the window opens', async () => {
    const { server, watch, clock } = await drifted({
      policy: { windows: [windowOf('Mon-Fri 18:00-20:00 Europe/Berlin')] },
    });
    await watch.run(2);
    expect(healed(watch)).toEqual([]);
    expect(await liveDomains(server)).not.toContain('d.example');
    expect(watch.watcher.status().targets[0]?.selfHeal).toMatchObject({ insideWindow: false });
    // 16:30 UTC is 18:30 in Berlin (summer time): inside, where a UTC window would still be closed.
    clock.advance(4.5 * 60 * MINUTE);
    await watch.run(3);
    expect(healed(watch).map(([action]) => action)).toEqual(['create', 'update']); // apply's order
    expect(watch.watcher.status().targets[0]?.selfHeal).toMatchObject({ insideWindow: true });
  });

  it('stops healing after repeated failures and alerts once', async () => {
    const { watch } = await drifted({ websiteLimit: 3, policy: { maxFailures: 2 } });
    await watch.run(4);
    const creates = healed(watch).filter(([action]) => action === 'create');
    expect(creates).toEqual([
      ['create', 'd.example', 'failed'],
      ['create', 'd.example', 'failed'],
    ]);
    const status = watch.watcher.status().targets[0]!;
    expect(status.selfHeal).toMatchObject({ mode: 'drift', stopped: true, consecutiveFailures: 2 });
    expect(status.alerts).toContain('heal_stopped');
    expect(watch.lines.filter((line) => line.msg === 'alert firing' && line.alert === 'heal_stopped')).toHaveLength(1);
  });
});

describe('a configuration that stops validating', () => {
  it('keeps the last good one, reports the error, and recovers', async () => {
    const { dir, watch } = await drifted();
    await watch.run(1);
    writeFileSync(join(dir, 'websites.yaml'), `${CONFIG}  - domain: [broken\n`);
    await watch.run(2);
    let status = watch.watcher.status();
    expect(status.config.ok).toBe(false);
    expect(status.config.error).toMatch(/websites\.yaml:\d+/);
    expect(status.targets[0]?.lastCheck?.result).toBe('success');
    expect(status.targets[0]?.counts?.in_sync).toBe(3); // still checked, against the last good configuration
    writeFileSync(join(dir, 'websites.yaml'), CONFIG);
    await watch.run(3);
    status = watch.watcher.status();
    expect(status.config).toEqual({ ok: true });
    expect(watch.lines.filter((line) => String(line.msg).startsWith('configuration invalid'))).toHaveLength(1);
  });

  it('picks up a rotated API key from --api-key-file at the next cycle', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const other = await server.createAccount();
    await insertWebsite(server, 'other.example', { accountId: other.id, values: STORED_DEFAULTS });
    const dir = tempDir('watch-rotate');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: other.example\n');
    writeFileSync(join(dir, 'key'), server.key);
    const watch = await watchInProcess({
      source: {
        files: [],
        targets: [],
        cwd: dir,
        env: { SITESYNC_URL: server.url },
        apiKeyFile: 'key',
        insecureHttp: false,
        heals: false,
      },
      intervalMs: MINUTE,
      budgetPerMinute: 20,
      renotifyMs: 24 * 60 * MINUTE,
      webhooks: [],
      clock: watchClock(0),
    });
    cleanups.push(() => watch.close());
    await watch.run(1);
    expect(watch.watcher.status().targets[0]?.counts).toMatchObject({ in_sync: 0, drift: 1 }); // not in this account
    writeFileSync(join(dir, 'key'), other.key);
    await watch.run(2);
    expect(watch.watcher.status().targets[0]?.counts).toMatchObject({ in_sync: 1, drift: 0 });
  });
});
