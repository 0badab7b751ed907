// The freshness check before an apply, against the reference server: each planned site read again and
// sorted into unchanged, already in the planned state (skip) or moved (the plan is stale), by listing or
// per-site reads, whichever costs fewer requests.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { WebsitesApi } from '../../src/api/index.js';
import { checkFreshness } from '../../src/apply/staleness.js';
import { ALREADY_APPLIED } from '../../src/model/apply-result.js';
import type { Plan } from '../../src/model/plan.js';
import { fingerprintsOf, plan } from '../../src/plan/index.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, policy } from '../plan/builders.js';
import { type ApplyFixture, MODES, startFixture, testClient } from './support.js';

// An update (privacy), a delete and a create: the three kinds of change a plan holds.
const CONFIG = [
  desired('update.example', { privacy: 'private', email: true }),
  desired('create.example', { privacy: 'private', favorite: true }),
];

describe.each(MODES)('checkFreshness (%s)', (mode) => {
  let fx: ApplyFixture;
  let planned: Plan;
  let ids: Record<string, number>;
  beforeEach(async () => {
    fx = await startFixture(mode);
    const update = await fx.other.createWebsite(desired('update.example', { privacy: 'public', email: true }));
    const remove = await fx.other.createWebsite(desired('delete.example'));
    ids = { update: update.id, delete: remove.id };
    planned = plan(CONFIG, await fx.api.listWebsites(), policy({ prune: true }));
    expect(planned.changes.map((change) => `${change.action} ${change.domain}`)).toEqual([
      'delete delete.example',
      'create create.example',
      'update update.example',
    ]);
  });
  afterEach(() => fx.close());

  const check = (liveCount: number) => checkFreshness(planned.changes, fingerprintsOf(planned), fx.api, { liveCount });

  test.each([
    ['per-site reads on a large account', 1_000, 3],
    ['one listing on a small account', 2, 1],
  ])('nothing moved: the plan holds (%s)', async (_, liveCount, requests) => {
    const before = fx.api.stats.requests;
    expect(await check(liveCount)).toEqual({ alreadyApplied: new Map(), moved: [] });
    expect(fx.api.stats.requests - before).toBe(requests);
  });

  test.each([1_000, 2])('every change already made by someone else: each is skipped, none is stale (%i)', async (n) => {
    await fx.other.deleteWebsite(ids.delete as number);
    await fx.other.createWebsite(CONFIG[1] as (typeof CONFIG)[1]);
    await fx.other.updateWebsite(ids.update as number, { settings: { privacy: 'private' } });
    const freshness = await check(n);
    expect(freshness.moved).toEqual([]);
    expect([...freshness.alreadyApplied]).toEqual([
      ['delete.example', ALREADY_APPLIED],
      ['create.example', ALREADY_APPLIED],
      ['update.example', ALREADY_APPLIED],
    ]);
  });

  test.each([1_000, 2])('sites moved since the plan are named with how they moved (%i)', async (n) => {
    await fx.other.updateWebsite(ids.delete as number, { settings: { email: true } });
    const appeared = await fx.other.createWebsite(desired('create.example', { privacy: 'public', favorite: true }));
    await fx.other.updateWebsite(ids.update as number, { settings: { email: false } });
    expect(await check(n)).toEqual({
      alreadyApplied: new Map(),
      moved: [
        { domain: 'delete.example', kind: 'changed', moves: [{ field: 'email', planned: false, now: true }] },
        {
          domain: 'create.example',
          kind: 'appeared',
          id: appeared.id,
          moves: [{ field: 'privacy', planned: 'private', now: 'public' }],
        },
        { domain: 'update.example', kind: 'changed', moves: [{ field: 'email', planned: true, now: false }] },
      ],
    });
  });

  test('a site to update that is gone since the plan is stale, not skipped', async () => {
    await fx.other.deleteWebsite(ids.update as number);
    expect((await check(1_000)).moved).toEqual([{ domain: 'update.example', kind: 'gone', moves: [] }]);
  });

  test.each([1_000, 2])('an interrupt stops the reads as interrupted (%i)', async (liveCount) => {
    const signal = AbortSignal.abort(new Error('SIGINT'));
    await expect(
      checkFreshness(planned.changes, fingerprintsOf(planned), fx.api, { liveCount, signal }),
    ).rejects.toMatchObject({ code: 'interrupted' });
  });
});

// A setting the plan could not read (a service version that does not return `exclude_params`, here a
// rewriting proxy) cannot make the plan stale, even when it can be read at apply time.
describe('checkFreshness with a setting the plan could not read', () => {
  let fx: ApplyFixture;
  let proxy: FaultProxy;
  let hidden: WebsitesApi;
  afterEach(async () => {
    await hidden.close();
    await proxy.close();
    await fx.close();
  });

  test.each([1_000, 2])('a site someone else brought to the planned state is skipped (%i)', async (liveCount) => {
    fx = await startFixture('normal');
    const site = await fx.other.createWebsite(desired('update.example', { privacy: 'public', excludeParams: ['ref'] }));
    proxy = await startFaultProxy({
      target: fx.server.url,
      rewrite: (_request, body) => {
        const records = (body as { data?: unknown }).data ?? body;
        for (const record of Array.isArray(records) ? records : [records]) delete record.exclude_params;
        return body;
      },
    });
    hidden = testClient(proxy.url, fx.server.key);
    const seen = await hidden.listWebsites();
    expect(seen[0]?.settings.excludeParams).toBeUndefined();
    const planned = plan([desired('update.example', { privacy: 'private' })], seen, policy());
    expect(planned.changes.map((change) => `${change.action} ${change.domain}`)).toEqual(['update update.example']);

    await fx.other.updateWebsite(site.id, { settings: { privacy: 'private' } });
    const freshness = await checkFreshness(planned.changes, fingerprintsOf(planned), fx.api, { liveCount });
    expect(freshness).toEqual({ alreadyApplied: new Map([['update.example', ALREADY_APPLIED]]), moved: [] });
  });
});
