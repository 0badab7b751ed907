// Apply of 200 changes through a fault-injecting proxy (resets, stalls, 502/503
// pages, 429 bursts, POSTs committed but answered with nothing): one run
// converges, with no duplicate website and no delete outside the plan, judged
// by the server's database. Both server modes; the fault mix is seeded.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { plan } from '../../src/plan/index.js';
import { type FaultProxy, seeded, startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, policy } from '../plan/builders.js';
import { type ApplyFixture, domainsInDb, MODES, seedWebsites, startFixture, testClient } from './support.js';

const range = (count: number, name: (i: number) => string) => Array.from({ length: count }, (_, i) => name(i));

describe.each(MODES)('apply under faults (%s)', (mode) => {
  let fx: ApplyFixture;
  let proxy: FaultProxy;
  beforeEach(async () => {
    fx = await startFixture(mode);
    proxy = await startFaultProxy({ target: fx.server.url, retryAfterSeconds: 0 });
  });
  afterEach(async () => {
    await proxy.close();
    await fx.close();
  });

  test('200 changes converge in one run: 0 duplicates, 0 deletes outside the plan', async () => {
    const toUpdate = range(70, (i) => `u${i}.managed.example`);
    const toDelete = range(30, (i) => `d${i}.managed.example`);
    const toCreate = range(100, (i) => `c${i}.managed.example`);
    const outside = range(20, (i) => `site${i}.elsewhere.example`);
    await seedWebsites(fx.server, [...toUpdate, ...toDelete, ...outside]);

    const config = [
      ...toUpdate.map((domain) => desired(domain, { email: true, excludeIps: ['10.0.0.1', '10.0.0.2'] })),
      ...toCreate.map((domain) => desired(domain, { privacy: 'public', favorite: true })),
    ];
    const scope = policy({ prune: true, manage: { include: ['*.managed.example'], exclude: [] } });
    const planned = plan(config, await fx.api.listWebsites(), scope);
    expect(planned.summary).toMatchObject({ create: 100, update: 70, delete: 30 });

    proxy.setPlan(
      seeded(mode === 'normal' ? 1 : 2, {
        reset: 0.04,
        stall: 0.01,
        'html-502': 0.03,
        'html-503': 0.03,
        throttle: 0.05,
        'commit-then-reset': 0.04,
        'commit-then-stall': 0.01,
        'commit-then-502': 0.03,
        truncate: 0.02,
      }),
    );
    const faulty = testClient(proxy.url, fx.server.key, {
      concurrency: 8,
      timeouts: { headersMs: 250, bodyMs: 250, operationMs: 20_000 },
      retry: { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 40 },
    });
    try {
      const result = await applyPlan(planned, new Map(config.map((site) => [site.domain, site])), faulty, {
        parallelism: 8,
      });
      expect(result.changes.filter((change) => change.outcome !== 'applied')).toEqual([]);
      expect(result.verification).toEqual({ status: 'checked', divergences: [] });
    } finally {
      await faulty.close();
    }

    const injected = proxy.log.filter((entry) => entry.fault !== 'pass').map((entry) => entry.fault);
    expect(new Set(injected).size).toBe(9);
    const domains = await domainsInDb(fx.server);
    expect(domains.length).toBe(new Set(domains).size); // no duplicates
    expect([...domains].sort()).toEqual([...toUpdate, ...toCreate, ...outside].sort()); // only planned deletes
    const replanned = plan(config, await fx.api.listWebsites(), scope);
    expect(replanned.changes).toEqual([]);
  });
});
