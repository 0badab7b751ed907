/**
 * What self-heal must never write (issue 39, mutants 5 to 7), against the
 * reference server: a plan that breaks a safety rule heals nothing (the loop
 * does not ask, and the port refuses if asked); a conflict is not drift, so
 * `--self-heal drift` leaves it to a person; `--allow-delete` names exact
 * domains (c.example does not reach abc.example).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Journal, memoryJournal } from '../../src/apply/journal.js';
import type { HealPolicy } from '../../src/watch/index.js';
import { recordWith, startFaultProxy } from '../helpers/fault-proxy.js';
import { gitRepo } from '../helpers/git-repo.js';
import { client, insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { enginePortOver, useCleanups, watchClock, watchOneAccount } from './support.js';

const NOON = Date.parse('2026-07-06T12:00:00Z');
const cleanups = useCleanups();

const HEAL: HealPolicy = { mode: 'drift', maxPerCycle: 5, allowDelete: [], windows: [], maxFailures: 3 };
const CONFIG = (top: string, domains: readonly string[]) =>
  `version: 1\n${top}defaults:\n  privacy: private\nwebsites:\n${domains.map((domain) => `  - domain: ${domain}\n`).join('')}`;

async function server(): Promise<TestServer> {
  const started = await startTestServer();
  cleanups.push(() => started.close());
  return started;
}

/** The live sites by domain, as the API shows them. */
async function live(at: TestServer): Promise<Record<string, Record<string, unknown>>> {
  const listed = await client(at)('GET', '/api/v1/websites?per_page=100');
  return Object.fromEntries(listed.body.data.map((site: { domain: string }) => [site.domain, site]));
}

/** The engine port watch heals through, over the account at `url`; closed by `cleanups`. */
function healingPort(dir: string, url: string, key: string, journal?: Journal) {
  return enginePortOver(
    cleanups,
    dir,
    { SITESYNC_URL: url, SITESYNC_API_KEY: key },
    { heals: true, journal, at: NOON },
  );
}

/** The engine port of the targets in `dir`, checking only; closed by `cleanups`. */
const checkingPort = (dir: string, env: Record<string, string>) => enginePortOver(cleanups, dir, env, { at: NOON });

/** a.example made public through the API (drift), c.example live but unlisted with prune and `max_deletes: 0`. */
async function unsafeDrift() {
  const at = await server();
  const ids: Record<string, number> = {};
  for (const domain of ['a.example', 'b.example', 'c.example']) ids[domain] = await insertWebsite(at, domain);
  await client(at)('PATCH', `/api/v1/websites/${ids['a.example']}`, { form: { privacy: '0' } });
  const dir = tempDir('watch-unsafe');
  writeFileSync(
    join(dir, 'websites.yaml'),
    CONFIG('prune: true\nlimits: { max_deletes: 0 }\n', ['a.example', 'b.example']),
  );
  return { at, dir };
}

describe('self-heal and an unsafe plan', () => {
  it('heals nothing, not even the drift it may heal, and says why', async () => {
    const { at, dir } = await unsafeDrift();
    const watch = await watchOneAccount(at, dir, cleanups, { heal: HEAL, clock: watchClock(NOON) });
    await watch.run(2);
    expect(watch.lines.filter((line) => String(line.msg).startsWith('self-heal'))).toEqual([]);
    const refusals = watch.lines.filter((line) => String(line.msg).startsWith('not healing'));
    expect(refusals).toHaveLength(2); // once a cycle
    expect(refusals[0]).toMatchObject({ level: 'warn', target: 'default' });
    expect((await live(at))['a.example']?.privacy).toBe(0);
    const status = watch.watcher.status().targets[0]!;
    expect(status.sites?.drift).toEqual(['a.example', 'c.example']);
    // The delete acknowledged: the plan is safe, and the same watch heals.
    const acknowledged = await watchOneAccount(at, dir, cleanups, {
      heal: { ...HEAL, allowDelete: ['c.example'] },
      clock: watchClock(NOON),
    });
    await acknowledged.run(1);
    expect(Object.keys(await live(at)).sort()).toEqual(['a.example', 'b.example']);
    expect((await live(at))['a.example']?.privacy).toBe(1);
  });

  it('is refused by the port too when a heal is asked of it: nothing is written', async () => {
    const { at, dir } = await unsafeDrift();
    const port = healingPort(dir, at.url, at.key);
    const signal = new AbortController().signal;
    expect(await port.reload(signal)).toMatchObject({ ok: true, targets: [{ name: 'default', checkable: true }] });
    const checked = await port.check('default', signal);
    expect(checked.unsafe).toBe(true);
    const update = checked.changes.filter((change) => change.action === 'update');
    expect(update).toEqual([{ domain: 'a.example', action: 'update', class: 'drift' }]);
    expect(await port.heal('default', update, signal)).toEqual([
      { domain: 'a.example', action: 'update', result: 'skipped', reason: 'the plan is unsafe' },
    ]);
    expect((await live(at))['a.example']?.privacy).toBe(0);
  });
});

describe('self-heal and a replica losing its target', () => {
  it('asks before each write and sends none once the target is lost: the rest are skipped, never written', async () => {
    const at = await server();
    for (const domain of ['a.example', 'b.example', 'c.example']) {
      await insertWebsite(at, domain, { values: { privacy: 0 } });
    }
    const dir = tempDir('watch-lost');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example', 'b.example', 'c.example']));
    const port = healingPort(dir, at.url, at.key);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checked = await port.check('default', signal);
    expect(checked.changes.map((change) => change.domain)).toEqual(['a.example', 'b.example', 'c.example']);
    // This replica holds the target for the first write only; asked again after a refusal, it would say yes.
    const answers = [true, false, true];
    let asked = 0;
    const results = await port.heal('default', checked.changes, signal, async () => answers[asked++] ?? true);
    expect(asked).toBe(2);
    expect(results).toEqual([
      { domain: 'a.example', action: 'update', result: 'applied' },
      { domain: 'b.example', action: 'update', result: 'skipped', reason: 'this replica no longer holds the target' },
      { domain: 'c.example', action: 'update', result: 'skipped', reason: 'this replica no longer holds the target' },
    ]);
    const after = await live(at);
    expect([after['a.example']?.privacy, after['b.example']?.privacy, after['c.example']?.privacy]).toEqual([1, 0, 0]);
  });
});

describe('self-heal and a conflict', () => {
  it('--self-heal drift heals the drift beside it and leaves the conflict, alerting on it', async () => {
    const at = await server();
    const ids: Record<string, number> = {};
    for (const domain of ['a.example', 'b.example']) ids[domain] = await insertWebsite(at, domain);
    const repo = gitRepo();
    repo.commit('v1', { 'websites.yaml': CONFIG('', ['a.example', 'b.example']) });
    repo.git('tag', 'sitesync-applied');
    // Since the applied commit: the configuration and the live site both moved a's excluded IPs, differently; b's
    // e-mail reports were turned on through the API only.
    repo.commit('v2', {
      'websites.yaml': CONFIG('', ['a.example', 'b.example']).replace(
        '  - domain: a.example\n',
        '  - domain: a.example\n    exclude_ips: [10.0.0.2]\n',
      ),
    });
    await client(at)('PATCH', `/api/v1/websites/${ids['a.example']}`, { form: { exclude_ips: '10.0.0.3' } });
    await client(at)('PATCH', `/api/v1/websites/${ids['b.example']}`, { form: { email: '1' } });

    const watch = await watchOneAccount(at, repo.dir, cleanups, { heal: HEAL, clock: watchClock(NOON) });
    await watch.run(1);
    const status = watch.watcher.status().targets[0]!;
    expect(status.sites).toMatchObject({ conflict: ['a.example'], drift: ['b.example'] });
    expect(status.alerts).toEqual(expect.arrayContaining(['conflict', 'drift']));
    const healed = watch.lines.filter((line) => String(line.msg).startsWith('self-heal'));
    expect(healed.map((line) => [line.domain, line.result])).toEqual([['b.example', 'applied']]);
    const sites = await live(at);
    expect(sites['a.example']?.exclude_ips).toBe('10.0.0.3');
    expect(sites['b.example']?.email).toBe(0);
  });
});

describe('--allow-delete', () => {
  it('names an exact domain: c.example lets a heal delete c.example, never abc.example', async () => {
    const at = await server();
    for (const domain of ['a.example', 'abc.example', 'c.example']) await insertWebsite(at, domain);
    const dir = tempDir('watch-allow-delete');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('prune: true\n', ['a.example']));
    const watch = await watchOneAccount(at, dir, cleanups, {
      heal: { ...HEAL, allowDelete: ['c.example'] },
      clock: watchClock(NOON),
    });
    await watch.run(2);
    expect(Object.keys(await live(at)).sort()).toEqual(['a.example', 'abc.example']);
    expect(watch.watcher.status().targets[0]?.sites?.drift).toEqual(['abc.example']);
  });
});

/** A proxy to `at` that holds the first listing's answer until `release`; `listing` resolves once it is on the wire. */
async function heldListing(at: TestServer) {
  let listed: () => void = () => {};
  const listing = new Promise<void>((resolve) => {
    listed = resolve;
  });
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const proxy = await startFaultProxy({
    target: at.url,
    hold: (request) => {
      if (request.method !== 'GET') return undefined;
      listed();
      return held;
    },
  });
  cleanups.push(() => proxy.close());
  return { proxy, listing, release };
}

describe('a reload while a check runs', () => {
  it('keeps the plan of a check whose target did not change: the heal that follows writes it', async () => {
    const at = await server();
    await insertWebsite(at, 'a.example', { values: { privacy: 0 } });
    const dir = tempDir('watch-reload-during-check');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example']));
    const { proxy, listing, release } = await heldListing(at);
    const port = healingPort(dir, proxy.url, at.key);
    const signal = new AbortController().signal;
    expect(await port.reload(signal)).toMatchObject({ ok: true });
    const checking = port.check('default', signal);
    await listing; // the listing is on the wire: the next cycle's reload comes now
    expect(await port.reload(signal)).toMatchObject({ ok: true, reloaded: [] });
    release();
    const checked = await checking;
    expect(checked.changes).toEqual([{ domain: 'a.example', action: 'update', class: 'drift' }]);
    expect(await port.heal('default', checked.changes, signal)).toEqual([
      { domain: 'a.example', action: 'update', result: 'applied' },
    ]);
    expect((await live(at))['a.example']?.privacy).toBe(1);
  });

  it('drops the plan of a check whose target changed meanwhile: the heal asked of it writes nothing', async () => {
    const at = await server();
    await insertWebsite(at, 'a.example', { values: { privacy: 0 } });
    const dir = tempDir('watch-reload-changed');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example']));
    const { proxy, listing, release } = await heldListing(at);
    const port = healingPort(dir, proxy.url, at.key);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checking = port.check('default', signal);
    await listing;
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example', 'b.example']));
    expect(await port.reload(signal)).toMatchObject({ ok: true, reloaded: ['default'] });
    release();
    const checked = await checking;
    expect(await port.heal('default', checked.changes, signal)).toEqual([
      { domain: 'a.example', action: 'update', result: 'skipped', reason: 'the configuration changed' },
    ]);
    expect((await live(at))['a.example']?.privacy).toBe(0);
  });
});

describe('what a heal records', () => {
  it('journals a heal as self-heal, a change the service refused as failed with its reason, an applied one with none', async () => {
    const at = await server();
    const ids: number[] = [];
    for (const domain of ['a.example', 'b.example']) {
      ids.push(await insertWebsite(at, domain, { values: { privacy: 0 } }));
    }
    const dir = tempDir('watch-heal-journal');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example', 'b.example']));
    const proxy = await startFaultProxy({ target: at.url });
    cleanups.push(() => proxy.close());
    const journal = memoryJournal();
    const port = healingPort(dir, proxy.url, at.key, journal);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checked = await port.check('default', signal);
    // Every write to b answered with the service's 500 (its retries too).
    proxy.setPlan((request) =>
      request.method === 'PUT' && request.path.endsWith(`/${ids[1]}`) ? 'server-500' : 'pass',
    );
    const results = await port.heal('default', checked.changes, signal);
    expect(results[0]).toStrictEqual({ domain: 'a.example', action: 'update', result: 'applied' });
    expect(results[1]).toMatchObject({ domain: 'b.example', action: 'update', result: 'failed' });
    expect(results[1]?.reason).toMatch(/500|Server Error/);
    const runs = journal.entries.filter((entry) => entry.event === 'begin' || entry.event === 'end');
    expect(runs).toMatchObject([
      { event: 'begin', target: 'default', mode: 'self-heal', total: 2 },
      { event: 'end', target: 'default', mode: 'self-heal' },
    ]);
  });

  it('journals nothing when every change asked breaks an error policy: nothing is sent', async () => {
    const at = await server();
    await insertWebsite(at, 'a.example', { values: { privacy: 0, email: 1 } });
    const dir = tempDir('watch-heal-policy');
    const policy = 'policies:\n  - name: reports-on\n    rule: site.email\n    message: every site sends reports\n';
    writeFileSync(join(dir, 'websites.yaml'), CONFIG(policy, ['a.example']));
    const journal = memoryJournal();
    const port = healingPort(dir, at.url, at.key, journal);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checked = await port.check('default', signal);
    expect(await port.heal('default', checked.changes, signal)).toEqual([
      { domain: 'a.example', action: 'update', result: 'skipped', reason: 'it breaks the error policy reports-on' },
    ]);
    expect(journal.entries.filter((entry) => entry.event !== 'drift')).toEqual([]);
    expect((await live(at))['a.example']).toMatchObject({ privacy: 0, email: 1 });
  });
});

/** A website record as it was before the heal: public, no e-mail reports. */
const asBefore = (body: unknown) => recordWith(body, { privacy: 0, email: 0 });

describe('a heal the service does not keep', () => {
  it('is read back through the replica guard and fails, so that --heal-failures can stop it', async () => {
    const at = await server();
    const id = await insertWebsite(at, 'a.example', { values: { privacy: 0 } });
    const dir = tempDir('watch-heal-not-kept');
    writeFileSync(
      join(dir, 'websites.yaml'),
      CONFIG('', ['a.example']).replace('private\n', 'private\n  email: true\n'),
    );
    // A service that answers the write and the read-back with the site as it was.
    const proxy = await startFaultProxy({
      target: at.url,
      rewrite: (request, body) => (request.path === `/api/v1/websites/${id}` ? asBefore(body) : undefined),
    });
    cleanups.push(() => proxy.close());
    const port = healingPort(dir, proxy.url, at.key);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checked = await port.check('default', signal);
    expect(await port.heal('default', checked.changes, signal, async () => true)).toEqual([
      {
        domain: 'a.example',
        action: 'update',
        result: 'failed',
        reason: 'read back: privacy: wanted private, is public; email: wanted true, is false',
      },
    ]);
    expect(proxy.log.at(-1)).toMatchObject({ method: 'GET', path: `/api/v1/websites/${id}` }); // the read-back
  });

  it('stays applied when the service took the write and another writer changed the site since: the next check sees it', async () => {
    const at = await server();
    const id = await insertWebsite(at, 'a.example', { values: { privacy: 0 } });
    const dir = tempDir('watch-heal-other-writer');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG('', ['a.example']));
    // The write is answered as sent; only the read-back shows the site as it was.
    const proxy = await startFaultProxy({
      target: at.url,
      rewrite: (request, body) =>
        request.method === 'GET' && request.path === `/api/v1/websites/${id}` ? asBefore(body) : undefined,
    });
    cleanups.push(() => proxy.close());
    const port = healingPort(dir, proxy.url, at.key);
    const signal = new AbortController().signal;
    await port.reload(signal);
    const checked = await port.check('default', signal);
    expect(await port.heal('default', checked.changes, signal, async () => true)).toStrictEqual([
      { domain: 'a.example', action: 'update', result: 'applied' },
    ]);
  });
});

describe('a target moved to another URL or key', () => {
  it('is checked at the new URL from the next cycle, with the same key', async () => {
    const at = await server();
    await insertWebsite(at, 'a.example');
    const proxy = await startFaultProxy({ target: at.url });
    cleanups.push(() => proxy.close());
    const dir = tempDir('watch-moved-url');
    const config = (url: string) =>
      `version: 1\ntargets:\n  - name: main\n    url: ${url}\n    key_env: SITESYNC_MAIN_KEY\nwebsites:\n  - domain: a.example\n`;
    writeFileSync(join(dir, 'websites.yaml'), config(at.url));
    const port = checkingPort(dir, { SITESYNC_MAIN_KEY: at.key, SITESYNC_ALLOWED_ORIGINS: `${at.url},${proxy.url}` });
    const signal = new AbortController().signal;
    await port.reload(signal);
    await port.check('main', signal);
    expect(proxy.log).toEqual([]);
    writeFileSync(join(dir, 'websites.yaml'), config(proxy.url));
    expect(await port.reload(signal)).toMatchObject({
      ok: true,
      targets: [{ name: 'main', service: new URL(proxy.url).origin }],
    });
    expect((await port.check('main', signal)).counts.in_sync).toBe(1);
    expect(proxy.log.map((request) => request.method)).toEqual(['GET']);
  });

  it('is checked with the new key once its key file holds another', async () => {
    const at = await server();
    await insertWebsite(at, 'a.example');
    const other = await at.createAccount();
    const dir = tempDir('watch-rotated-key');
    writeFileSync(join(dir, 'key'), at.key);
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\ntargets:\n  - name: main\n    url: ${at.url}\n    key_file: key\nwebsites:\n  - domain: a.example\n`,
    );
    const port = checkingPort(dir, { SITESYNC_ALLOWED_ORIGINS: at.url });
    const signal = new AbortController().signal;
    await port.reload(signal);
    expect((await port.check('main', signal)).changes).toEqual([]);
    writeFileSync(join(dir, 'key'), other.key); // the other account has no site yet
    await port.reload(signal);
    expect((await port.check('main', signal)).changes).toMatchObject([{ domain: 'a.example', action: 'create' }]);
  });
});
