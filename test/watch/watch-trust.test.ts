/**
 * `watch --git-pull` takes whatever is pushed (issue 33 item 1): a pushed
 * configuration that points a target at an origin nobody pinned, reads a key
 * from a variable that is not SITESYNC_…, or puts ${VAR} in a URL is refused
 * as invalid. Nothing reaches the recording socket it names, no secret of the
 * environment appears in a log line, /status or an alert, and the last good
 * configuration keeps being checked.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitPuller } from '../../src/watch/git-pull.js';
import { startConnectionRecorder } from '../helpers/connection-recorder.js';
import { gitRepo } from '../helpers/git-repo.js';
import { manualClock } from '../helpers/manual-clock.js';
import { insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MINUTE, useCleanups, watchInProcess, webhookReceiver } from './support.js';

const cleanups = useCleanups();
const WEBHOOK_TOKEN = 'T0KEN-0123456789abcdef'; // in webhookReceiver's URL
const OTHER_SECRET = 'other-secret-value-0001';

const targets = (url: string, keyEnv = 'SITESYNC_PRODUCTION_KEY') =>
  `version: 1\ntargets:\n  - name: production\n    url: ${url}\n    key_env: ${keyEnv}\nwebsites:\n  - domain: a.example\n`;

describe('watch --git-pull and a hostile push', () => {
  it('refuses each hostile configuration, sends nothing there, leaks nothing, and keeps checking', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    await insertWebsite(server, 'a.example', { values: STORED_DEFAULTS });
    const recorder = await startConnectionRecorder();
    cleanups.push(() => recorder.close());
    const receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    const origin = gitRepo();
    origin.commit('v1', { 'websites.yaml': targets(server.url) });
    const checkout = join(tempDir('watch-trust'), 'repo');
    execFileSync('git', ['clone', '--quiet', origin.dir, checkout], { stdio: 'ignore' });
    const env = {
      SITESYNC_ALLOWED_ORIGINS: server.url,
      SITESYNC_PRODUCTION_KEY: server.key,
      TEAM_WEBHOOK: receiver.url,
      OTHER_SECRET,
    };
    const watch = await watchInProcess({
      source: { files: [], targets: [], cwd: checkout, env, insecureHttp: false, heals: false },
      intervalMs: MINUTE,
      budgetPerMinute: 20,
      renotifyMs: 24 * 60 * MINUTE,
      webhooks: [{ name: 'TEAM_WEBHOOK', url: receiver.url }],
      clock: manualClock(Date.parse('2026-07-06T12:00:00Z')),
      beforeReload: gitPuller({ dir: checkout, remote: 'origin', tag: 'sitesync-applied' }),
    });
    cleanups.push(() => watch.close());
    await watch.run(1);
    expect(watch.watcher.status().targets[0]?.counts).toMatchObject({ drift: 0 });

    const hostile: [string, string][] = [
      [targets(recorder.url), `target production: url ${recorder.url} is not a pinned origin`],
      [targets(server.url, 'TEAM_WEBHOOK'), 'a key is read only from a variable whose name starts with SITESYNC_'],
      [targets(`${recorder.url}/\${OTHER_SECRET}`), 'is resolved only in password'],
    ];
    let cycle = 1;
    for (const [text, refusal] of hostile) {
      origin.commit('hostile', { 'websites.yaml': text });
      await watch.run(++cycle);
      const status = watch.watcher.status();
      expect(status.config).toEqual({ ok: false, error: expect.stringContaining(refusal) });
      // The last good configuration is still checked, against the pinned server.
      expect(status.targets.map((target) => [target.target, target.lastCheck?.result])).toEqual([
        ['production', 'success'],
      ]);
    }
    expect(recorder.connections).toEqual([]);
    const seen = JSON.stringify([watch.lines, watch.watcher.status(), receiver.bodies]);
    expect(seen).toContain('is not a pinned origin');
    for (const secret of [WEBHOOK_TOKEN, OTHER_SECRET, server.key]) expect(seen).not.toContain(secret);
  });
});
