// What applyPlan accounts for beyond the plain run: changes to skip, a delete already done, a password
// sent from the configuration, the journal's reasons, the requests a run cost, the read-back left out.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { type JournalEntry, memoryJournal } from '../../src/apply/journal.js';
import { SitesyncError } from '../../src/model/errors.js';
import type { DesiredWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/index.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, policy } from '../plan/builders.js';
import {
  type ApplyFixture,
  byDomain,
  domainsInDb,
  planAgainst,
  seedWebsites,
  startFixture,
  testClient,
} from './support.js';

describe('applyPlan options and outcomes', () => {
  let fx: ApplyFixture;
  beforeEach(async () => {
    fx = await startFixture('normal');
  });
  afterEach(() => fx.close());

  const planFor = (config: DesiredWebsite[]) => planAgainst(fx.api, config);

  test('a change to skip is not sent, and is journalled with its reason', async () => {
    const config = [desired('done.example'), desired('todo.example')];
    const journal = memoryJournal();
    const skip = new Map([['done.example', 'already applied: the live state matches the plan']]);
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api, { skip, journal });
    expect(result.changes).toEqual([
      {
        action: 'create',
        domain: 'done.example',
        id: null,
        outcome: 'skipped',
        reason: 'already applied: the live state matches the plan',
      },
      { action: 'create', domain: 'todo.example', id: 1, outcome: 'applied' },
    ]);
    expect(result.counts).toEqual({ applied: 1, failed: 0, skipped: 1, total: 2 });
    expect(await domainsInDb(fx.server)).toEqual(['todo.example']);
    expect(journal.entries.filter((entry) => entry.event !== 'planned')).toEqual([
      {
        event: 'skipped',
        action: 'create',
        domain: 'done.example',
        id: null,
        reason: 'already applied: the live state matches the plan',
      },
      { event: 'started', action: 'create', domain: 'todo.example', id: null },
      { event: 'succeeded', action: 'create', domain: 'todo.example', id: 1 },
    ]);
  });

  test('a journal that fails mid-run (a full disk): no change starts after it, every write is in a line written or lost', async () => {
    const sites = Array.from({ length: 6 }, (_, i) => desired(`j${i}.example`));
    // Like journal-file.ts on a disk that fills up after the first success: each later line throws, and is lost.
    const written: JournalEntry[] = [];
    const lost: JournalEntry[] = [];
    const journal = {
      record(entry: JournalEntry) {
        if (written.some((line) => line.event === 'succeeded')) {
          lost.push(entry);
          throw new SitesyncError('usage', 'cannot write the journal j.jsonl: no space left on device (ENOSPC)');
        }
        written.push(entry);
      },
      close() {},
    };
    const run = applyPlan(await planFor(sites), byDomain(sites), fx.api, { journal, parallelism: 2 });
    await expect(run).rejects.toThrow('cannot write the journal j.jsonl');
    const succeeded = [...written, ...lost].filter((entry) => entry.event === 'succeeded').map((entry) => entry.domain);
    const live = await domainsInDb(fx.server);
    expect(succeeded.sort()).toEqual(live);
    expect(live.length).toBeLessThan(sites.length); // the failure stopped the run
  });

  test('a delete of a site already gone counts as applied, saying so', async () => {
    const gone = await fx.other.createWebsite(desired('gone.example'));
    const planned = await planFor([]);
    await fx.other.deleteWebsite(gone.id);
    const journal = memoryJournal();
    const result = await applyPlan(planned, new Map(), fx.api, { journal });
    expect(result.changes).toEqual([
      { action: 'delete', domain: 'gone.example', id: gone.id, outcome: 'applied', reason: 'already gone' },
    ]);
    expect(result.verification).toEqual({ status: 'checked', divergences: [] });
    expect(journal.entries.at(-1)).toEqual({
      event: 'succeeded',
      action: 'delete',
      domain: 'gone.example',
      id: gone.id,
      reason: 'already gone',
    });
  });

  test('a password the plan sends comes from the configuration', async () => {
    const site = await fx.other.createWebsite(desired('locked.example'));
    const config = [desired('locked.example', { privacy: 'password' }, { password: 'correct-horse-battery' })];
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);
    expect(result.changes).toEqual([{ action: 'update', domain: 'locked.example', id: site.id, outcome: 'applied' }]);
    expect(result.verification).toEqual({ status: 'checked', divergences: [] });
    expect((await fx.api.getWebsite(site.id))?.hasPassword).toBe(true);
  });

  test('a plan that sends a password the configuration does not hold fails that change, sending nothing', async () => {
    const site = await fx.other.createWebsite(desired('locked.example'));
    const config = [desired('locked.example', { privacy: 'password' }, { password: 'correct-horse-battery' })];
    const planned = await planFor(config);
    const journal = memoryJournal();
    const withoutPassword = byDomain([desired('locked.example', { privacy: 'password' })]);
    // With a run's signal that is never aborted, as under the CLI: failed before sending is not "interrupted".
    const signal = new AbortController().signal;
    const result = await applyPlan(planned, withoutPassword, fx.api, { journal, signal });
    expect(result.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        domain: 'locked.example',
        id: site.id,
        outcome: 'failed',
        code: 'config',
        reason: expect.stringContaining('the plan sends a password, but the configuration has none'),
      }),
    ]);
    expect(result.requests).toBe(0);
    expect(result.verification).toEqual({ status: 'not_needed', divergences: [] }); // nothing was applied
    expect(journal.entries.at(-1)).toMatchObject({ event: 'failed', domain: 'locked.example', code: 'config' });
    expect((await fx.api.getWebsite(site.id))?.settings.privacy).toBe(site.settings.privacy);
  });

  test('a create missing from the configuration map is sent with the plan settings', async () => {
    const config = [desired('planned.example', { privacy: 'private', favorite: true })];
    const result = await applyPlan(await planFor(config), new Map(), fx.api);
    expect(result.changes).toEqual([{ action: 'create', domain: 'planned.example', id: 1, outcome: 'applied' }]);
    expect((await fx.api.getWebsite(1))?.settings).toMatchObject({ privacy: 'private', favorite: true });
  });

  test('without the read-back: only the writes are sent, and counted', async () => {
    const config = [desired('a.example'), desired('b.example')];
    const planned = await planFor(config);
    const result = await applyPlan(planned, byDomain(config), fx.api, { verify: false });
    expect(result.verification).toEqual({ status: 'not_needed', divergences: [] });
    expect(result.requests).toBe(2);
    const checked = await applyPlan(await planFor([]), new Map(), fx.api);
    expect(checked.requests).toBe(2 + 1); // two deletes, then one listing (cheaper than two reads)
  });

  test('a read-back the server does not answer leaves the run unverified, saying why', async () => {
    const proxy = await startFaultProxy({ target: fx.server.url });
    const api = testClient(proxy.url, fx.server.key);
    try {
      const config = [desired('new.example')];
      const planned = plan(config, await api.listWebsites(), policy({ prune: true }));
      proxy.setPlan((request) => (request.method === 'GET' ? 'server-500' : 'pass'));
      const result = await applyPlan(planned, byDomain(config), api);
      expect(result.changes).toEqual([{ action: 'create', domain: 'new.example', id: 1, outcome: 'applied' }]);
      expect(result.verification).toEqual({
        status: 'unavailable',
        divergences: [],
        error: expect.stringMatching(/^could not read the sites back: GET \/api\/v1\/websites.* → 500/),
      });
    } finally {
      await api.close();
      await proxy.close();
    }
  });

  test('the read-back after 3 creates in an account of 400 reads the 3 sites, not 5 pages of the listing', async () => {
    await seedWebsites(
      fx.server,
      Array.from({ length: 400 }, (_, i) => `kept-${i}.example`),
    );
    const config = [
      ...Array.from({ length: 400 }, (_, i) => desired(`kept-${i}.example`)),
      ...['a', 'b', 'c'].map((name) => desired(`${name}.example`)),
    ];
    const planned = await planFor(config);
    const before = fx.api.stats.requests;
    const result = await applyPlan(planned, byDomain(config), fx.api);
    expect(result.verification).toEqual({ status: 'checked', divergences: [] });
    expect(fx.api.stats.requests - before).toBe(3 + 3);
  });

  test('the read-back counts sites outside manage and sites kept without prune in the account size', async () => {
    await seedWebsites(
      fx.server,
      Array.from({ length: 200 }, (_, i) => `theirs-${i}.other`),
    );
    await seedWebsites(
      fx.server,
      Array.from({ length: 200 }, (_, i) => `kept-${i}.example`),
    );
    const config = ['a', 'b', 'c'].map((name) => desired(`${name}.example`));
    const manage = { include: ['*'], exclude: ['*.other'] };
    const planned = plan(config, await fx.api.listWebsites(), policy({ prune: false, manage }));
    expect(planned.summary).toMatchObject({ create: 3, outOfScope: 200, kept: 200 });
    const before = fx.api.stats.requests;
    await applyPlan(planned, byDomain(config), fx.api);
    expect(fx.api.stats.requests - before).toBe(3 + 3); // 403 sites: three reads, not five pages
  });

  test('a create the server answered but did not store is reported missing', async () => {
    const store = fx.server.server.store;
    const insertWebsite = store.insertWebsite.bind(store);
    store.insertWebsite = async (...args) => {
      const created = await insertWebsite(...args);
      await store.deleteWebsite(created.accountId, created.id); // lost behind the answer
      return created;
    };
    const config = [desired('lost.example')];
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);
    expect(result.changes).toEqual([{ action: 'create', domain: 'lost.example', id: 1, outcome: 'applied' }]);
    expect(result.verification).toEqual({
      status: 'checked',
      divergences: [{ domain: 'lost.example', kind: 'missing' }],
    });
  });
});
