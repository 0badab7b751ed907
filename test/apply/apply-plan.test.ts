// The apply engine against the reference server over real HTTP, in both modes.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { memoryJournal } from '../../src/apply/journal.js';
import type { DesiredWebsite } from '../../src/model/website.js';
import { applyResultLines } from '../../src/render/apply-result.js';
import { desired } from '../plan/builders.js';
import { type ApplyFixture, byDomain, domainsInDb, MODES, planAgainst, seedWebsites, startFixture } from './support.js';

describe.each(MODES)('applyPlan (%s)', (mode) => {
  let fx: ApplyFixture;
  beforeEach(async () => {
    fx = await startFixture(mode);
  });
  afterEach(() => fx.close());

  const planFor = (config: DesiredWebsite[], prune = true) => planAgainst(fx.api, config, prune);

  test('deletes, then creates, then updates; reads back and finds everything in place', async () => {
    await fx.other.createWebsite(desired('keep.example', { privacy: 'public' }));
    await fx.other.createWebsite(desired('gone.example'));
    const config = [
      desired('keep.example', { privacy: 'public', email: true, excludeIps: ['10.0.0.1'] }),
      desired('new.example', { privacy: 'password', favorite: true }, { password: 'hunter2-long' }),
    ];
    const journal = memoryJournal();
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api, { journal });

    expect(result.changes).toEqual([
      { action: 'delete', domain: 'gone.example', id: 2, outcome: 'applied' },
      { action: 'create', domain: 'new.example', id: 3, outcome: 'applied' },
      { action: 'update', domain: 'keep.example', id: 1, outcome: 'applied' },
    ]);
    expect(result.counts).toEqual({ applied: 3, failed: 0, skipped: 0, total: 3 });
    expect(result.verification).toEqual({ status: 'checked', divergences: [] });
    expect(await domainsInDb(fx.server)).toEqual(['keep.example', 'new.example']);
    expect(journal.entries.map((entry) => `${entry.event} ${entry.domain}`)).toEqual([
      'planned gone.example',
      'planned new.example',
      'planned keep.example',
      'started gone.example',
      'succeeded gone.example',
      'started new.example',
      'succeeded new.example',
      'started keep.example',
      'succeeded keep.example',
    ]);
    expect((await planFor(config)).changes).toEqual([]);
  });

  test('a failure does not stop independent changes, and says why', async () => {
    const stranger = await fx.server.createAccount();
    await seedWebsites(fx.server, ['taken.example'], stranger.id);
    const config = [desired('taken.example'), desired('fine.example'), desired('also-fine.example')];
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);

    expect(result.counts).toEqual({ applied: 2, failed: 1, skipped: 0, total: 3 });
    const failed = result.changes.find((change) => change.outcome === 'failed');
    expect(failed).toMatchObject({ action: 'create', domain: 'taken.example', id: null, code: 'validation' });
    expect(failed?.reason).toContain('POST /api/v1/websites → 422: domain:');
    expect(await domainsInDb(fx.server)).toEqual(['also-fine.example', 'fine.example']);
  });

  test('an update of a site deleted out of band fails with that reason', async () => {
    const site = await fx.other.createWebsite(desired('vanishing.example'));
    const config = [desired('vanishing.example', { email: true })];
    const planned = await planFor(config);
    await fx.other.deleteWebsite(site.id);
    const result = await applyPlan(planned, byDomain(config), fx.api);
    expect(result.changes).toEqual([
      {
        action: 'update',
        domain: 'vanishing.example',
        id: site.id,
        outcome: 'failed',
        code: 'not_found',
        reason: 'the site was deleted since the plan was made (out of band)',
      },
    ]);
    expect(await domainsInDb(fx.server)).toEqual([]);
  });

  test('after an abort, in-flight changes finish and the rest are skipped', async () => {
    const config = ['a', 'b', 'c', 'd', 'e'].map((name) => desired(`${name}.example`));
    const controller = new AbortController();
    const journal = memoryJournal();
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api, {
      parallelism: 1,
      signal: controller.signal,
      journal,
      onProgress: (event) => event.done === 2 && controller.abort(),
    });
    // The journal says only what was sent: nothing is "started" after the interrupt.
    expect(journal.entries.filter((entry) => entry.event === 'started').map((entry) => entry.domain)).toEqual([
      'a.example',
      'b.example',
    ]);
    expect(result.interrupted).toBe(true);
    expect(result.changes.map((change) => `${change.outcome} ${change.domain}`)).toEqual([
      'applied a.example',
      'applied b.example',
      'skipped c.example',
      'skipped d.example',
      'skipped e.example',
    ]);
    expect(result.changes[2]?.reason).toBe('not started: the run was interrupted');
    expect(await domainsInDb(fx.server)).toEqual(['a.example', 'b.example']);
  });

  test('the read-back names a delete the server answered as done but did not carry out', async () => {
    await fx.other.createWebsite(desired('kept.example'));
    await fx.other.createWebsite(desired('stubborn.example'));
    // A server that acknowledges the delete and keeps the site (a lost write behind a load balancer).
    const store = fx.server.server.store;
    store.deleteWebsite = async () => true;
    const config = [desired('kept.example')];
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);
    expect(result.changes).toEqual([{ action: 'delete', domain: 'stubborn.example', id: 2, outcome: 'applied' }]);
    expect(result.verification).toEqual({
      status: 'checked',
      divergences: [{ domain: 'stubborn.example', kind: 'still_exists' }],
    });
    expect(applyResultLines(result).map((line) => line.text)).toEqual(
      expect.arrayContaining([
        'the server did not take (read back after the apply):',
        '  stubborn.example: still exists after the delete',
      ]),
    );
    expect(await domainsInDb(fx.server)).toEqual(['kept.example', 'stubborn.example']);
  });

  test('the read-back names what the server answered as done but did not store, a password by name only', async () => {
    const site = await fx.other.createWebsite(desired('forgetful.example'));
    // A server that acknowledges the update but stores neither the email flag nor the password.
    const store = fx.server.server.store;
    const updateWebsite = store.updateWebsite.bind(store);
    store.updateWebsite = (accountId, id, { email: _email, passwordHash: _hash, ...kept }, now) =>
      updateWebsite(accountId, id, kept, now);
    const config = [
      desired('forgetful.example', { privacy: 'password', email: true }, { password: 'correct-horse-battery' }),
    ];
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);
    expect(result.changes).toEqual([
      { action: 'update', domain: 'forgetful.example', id: site.id, outcome: 'applied' },
    ]);
    // The real service echoes what was sent in its answer, so there a lost write looks like another writer's.
    const echoed = mode === 'phpanalytics-v31' && { otherWriter: true };
    expect(result.verification).toEqual({
      status: 'checked',
      divergences: [
        { domain: 'forgetful.example', kind: 'field', field: 'email', wanted: true, actual: false, ...echoed },
        { domain: 'forgetful.example', kind: 'field', field: 'password', ...echoed },
      ],
    });
    expect(JSON.stringify(result)).not.toContain('correct-horse-battery');
  });

  test('the read-back names a site another writer changed during the run', async () => {
    const config = [desired('contested.example', { privacy: 'private', email: true })];
    // Someone changes the site in the web UI right after we created it: the server has stored our create
    // and answers it as sent, and the change is committed (awaited) before that answer leaves.
    const store = fx.server.server.store;
    const insertWebsite = store.insertWebsite.bind(store);
    store.insertWebsite = async (...args) => {
      const created = await insertWebsite(...args);
      await store.updateWebsite(created.accountId, created.id, { privacy: 0 }, new Date());
      return created;
    };
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api);
    expect(result.counts.applied).toBe(1);
    expect(result.verification).toEqual({
      status: 'checked',
      // The service answered our create as configured, so the difference is another writer's, named as such.
      divergences: [
        {
          domain: 'contested.example',
          kind: 'field',
          field: 'privacy',
          wanted: 'private',
          actual: 'public',
          otherWriter: true,
        },
      ],
    });
    expect(applyResultLines(result).map((line) => line.text)).toEqual(
      expect.arrayContaining([
        'changed by someone else during this run (the service took our write, then the read-back differed; one account should have one writer):',
        '  contested.example: privacy: wanted private, is public',
      ]),
    );
  });
});
