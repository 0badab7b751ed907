/**
 * The GitOps pull model (`--git-pull`): before each cycle watch fetches the
 * branch and the applied tag from the remote and fast-forwards its checkout,
 * then classifies against that tag: a site added in git since the tag is
 * pending, a site changed through the API is drift; `--self-heal drift` heals
 * the drift and leaves the pending change to the reviewed apply.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWatch } from '../../src/cli/commands/watch.js';
import { captureIo } from '../../src/cli/io.js';
import { gitPuller } from '../../src/watch/git-pull.js';
import { gitRepo } from '../helpers/git-repo.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CLI_FLAGS, useCleanups, watchClock, watchOneAccount } from './support.js';

const V1 = 'version: 1\ndefaults:\n  privacy: private\nwebsites:\n  - domain: a.example\n  - domain: b.example\n';
const cleanups = useCleanups();

/** A repository holding V1 and, optionally tagged as applied, and a clone of it. */
function originAndCheckout(tag = false) {
  const origin = gitRepo();
  origin.commit('v1', { 'websites.yaml': V1 });
  if (tag) origin.git('tag', 'sitesync-applied');
  const checkout = join(tempDir('watch-checkout'), 'repo');
  execFileSync('git', ['clone', '--quiet', origin.dir, checkout], { stdio: 'ignore' });
  return { origin, checkout };
}

describe('watch --git-pull', () => {
  it('pulls the branch and the applied tag, tells pending from drift, and heals only drift', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const ids: Record<string, number> = {};
    for (const domain of ['a.example', 'b.example'])
      ids[domain] = await insertWebsite(server, domain, { values: STORED_DEFAULTS });
    const { origin, checkout } = originAndCheckout(true);

    const watch = await watchOneAccount(server, checkout, cleanups, {
      heal: { mode: 'drift', maxPerCycle: 5, allowDelete: [], windows: [], maxFailures: 3 },
      clock: watchClock(Date.parse('2026-07-06T12:00:00Z')),
      beforeReload: gitPuller({ dir: checkout, remote: 'origin', tag: 'sitesync-applied' }),
    });
    await watch.run(1);
    expect(watch.watcher.status().targets[0]?.counts).toMatchObject({ in_sync: 2, pending: 0, drift: 0 });

    origin.commit('add c', { 'websites.yaml': `${V1}  - domain: c.example\n` });
    await client(server)('PATCH', `/api/v1/websites/${ids['b.example']}`, { form: { privacy: '0' } });
    await watch.run(2);
    const healed = watch.lines.filter((line) => line.msg === 'self-heal applied').map((line) => line.domain);
    expect(healed).toEqual(['b.example']);
    await watch.run(3);
    const status = watch.watcher.status().targets[0]!;
    expect(status.sites?.pending).toEqual(['c.example']); // waits for the reviewed apply
    expect(status.counts?.in_sync).toBe(2); // in-sync sites are counted, not listed
    expect(status.sites?.drift).toEqual([]);
  });

  it('stops at start when the first pull fails, and pulls only the branch checked out', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const { checkout } = originAndCheckout();
    const watch = await watchOneAccount(server, checkout, cleanups, {
      clock: watchClock(0),
      beforeReload: gitPuller({ dir: checkout, remote: 'nowhere', tag: 'sitesync-applied' }),
    });
    // At start there is no good configuration to keep: an error, as Prometheus does (exit 1).
    await expect(watch.run(1)).rejects.toThrow(/^git fetch: /);
    expect(watch.watcher.status()).toMatchObject({ ready: false, targets: [] });
    // Pulling another branch than the one checked out would move the wrong branch.
    const other = gitPuller({ dir: checkout, remote: 'origin', branch: 'release', tag: 'sitesync-applied' });
    await expect(other(new AbortController().signal)).rejects.toThrow(
      '--git-branch release: the checkout is on main; check out release',
    );
  });

  it('from the command line, with -f naming the file in the checkout', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const { origin, checkout } = originAndCheckout();
    origin.commit('add c', { 'websites.yaml': `${V1}  - domain: c.example\n` }); // pulled before the first check
    const io = captureIo({ env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key }, cwd: checkout });
    const stop = new AbortController();
    io.signal = stop.signal;
    const write = io.stderr.write;
    io.stderr = {
      ...io.stderr,
      write: (text) => {
        write(text);
        if (text.includes('"msg":"checked"')) stop.abort();
      },
    };
    const code = await runWatch({ ...CLI_FLAGS, gitPull: true, file: ['websites.yaml'] }, io, () => () => {});
    expect(code, io.err()).toBe(0);
    const checked = io
      .err()
      .split('\n')
      .filter((line) => line.includes('"msg":"checked"'))
      .map((line) => JSON.parse(line));
    // c.example, committed after the clone, was pulled; no baseline tag yet, so all three are drift (creates).
    expect(checked[0]).toMatchObject({ in_sync: 0, drift: 3 });
  });
});
