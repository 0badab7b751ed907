/**
 * "Live since" for drift: watch remembers the first check that saw each site
 * drift (in /status's `driftSince`, kept while it stays drifted, forgotten once
 * in sync) and journals it; `plan --live-since JOURNAL` shows it on the
 * drifted change. Real reference server, manual clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryJournal } from '../../src/apply/journal.js';
import { workspace } from '../cli/apply-support.js';
import { manualClock } from '../helpers/manual-clock.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MINUTE, useCleanups, watchOneAccount } from './support.js';

const cleanups = useCleanups();
const NOON = Date.parse('2026-07-06T12:00:00Z');

describe('live since', () => {
  it('watch keeps the first sighting of a drift, journals it, and plan --live-since shows it', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const id = await insertWebsite(server, 'a.example', { values: STORED_DEFAULTS });
    await insertWebsite(server, 'b.example', { values: STORED_DEFAULTS });
    const dir = tempDir('live-since');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n  - domain: b.example\n');
    await client(server)('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '0' } });
    const journal = memoryJournal();
    const clock = manualClock(NOON);
    const watch = await watchOneAccount(server, dir, cleanups, { clock, journal });
    await watch.run(1);
    clock.advance(10 * MINUTE);
    await watch.run(2);
    expect(watch.watcher.status().targets[0]?.driftSince).toEqual({ 'a.example': '2026-07-06T12:00:00.000Z' });
    const drift = journal.entries.filter((entry) => entry.event === 'drift');
    expect(drift).toEqual([
      { event: 'drift', target: 'default', domain: 'a.example', class: 'drift', seen: '2026-07-06T12:00:00.000Z' },
    ]);

    const ws = workspace(server);
    ws.write('websites.yaml', 'version: 1\nwebsites:\n  - domain: a.example\n  - domain: b.example\n');
    ws.write('watch.jsonl', `${journal.entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
    const json = await ws.run(['plan', '--live-since', 'watch.jsonl', '--format', 'json']);
    expect(json.code, json.err).toBe(0);
    const change = JSON.parse(json.out).changes.find((each: { domain: string }) => each.domain === 'a.example');
    expect(change).toMatchObject({ liveSince: { at: '2026-07-06T12:00:00.000Z', source: 'watch' } });
    const human = await ws.run(['plan', '--live-since', 'watch.jsonl']);
    expect(human.out).toContain('~ a.example (id 1) will be updated\n    live since 2026-07-06 (watch)\n');

    // Back in sync: the sighting is forgotten.
    await client(server)('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '1' } });
    clock.advance(10 * MINUTE);
    await watch.run(3);
    expect(watch.watcher.status().targets[0]?.driftSince).toEqual({});
  });
});
