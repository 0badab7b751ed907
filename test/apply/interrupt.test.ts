// What an interrupt (Ctrl-C: the run's signal) does to a change, by where its write is: one waiting for
// the rate limiter stops at once and is skipped, nothing sent; one on the wire finishes and is applied
// (aborting it would leave its outcome unknown). Driven by events: the proxy says when a write arrived.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { memoryJournal } from '../../src/apply/journal.js';
import type { DesiredWebsite } from '../../src/model/website.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { manualClock } from '../helpers/manual-clock.js';
import { desired } from '../plan/builders.js';
import { type ApplyFixture, byDomain, domainsInDb, planAgainst, startFixture, testClient } from './support.js';

const INTERRUPTED = {
  outcome: 'skipped',
  code: 'interrupted',
  reason: 'not started: the run was interrupted',
} as const;

describe('an interrupt during an apply', () => {
  let fx: ApplyFixture;
  beforeEach(async () => {
    fx = await startFixture('normal');
  });
  afterEach(() => fx.close());

  const planFor = (config: DesiredWebsite[]) => planAgainst(fx.api, config);

  test('while a create is on the wire: it finishes, applied and journalled; the next change is not started', async () => {
    let arrived = () => {};
    const onWire = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The server has stored the create; its answer waits at the proxy until the interrupt has happened.
    const proxy = await startFaultProxy({
      target: fx.server.url,
      hold: (request) => {
        if (request.method !== 'POST') return undefined;
        arrived();
        return released;
      },
    });
    const api = testClient(proxy.url, fx.server.key);
    try {
      const config = [desired('one.example'), desired('two.example')];
      const controller = new AbortController();
      const journal = memoryJournal();
      const run = applyPlan(await planFor(config), byDomain(config), api, {
        parallelism: 1,
        signal: controller.signal,
        journal,
      });
      await onWire;
      controller.abort(new Error('SIGINT'));
      release();
      const result = await run;
      expect(result.interrupted).toBe(true);
      expect(result.changes).toEqual([
        { action: 'create', domain: 'one.example', id: 1, outcome: 'applied' },
        { action: 'create', domain: 'two.example', id: null, ...INTERRUPTED },
      ]);
      expect(await domainsInDb(fx.server)).toEqual(['one.example']);
      expect(proxy.log.map((request) => request.method)).toEqual(['POST']);
      expect(journal.entries.filter((entry) => entry.domain === 'one.example').map((entry) => entry.event)).toEqual([
        'planned',
        'started',
        'succeeded',
      ]);
    } finally {
      await api.close();
      await proxy.close();
    }
  });

  test('while a write waits for the rate limiter: it is skipped, nothing sent; the write already sent is applied', async () => {
    const controller = new AbortController();
    // One request a minute on a clock that stands still: the second create waits, and its notice interrupts the run.
    const api = testClient(fx.server.url, fx.server.key, {
      rateLimitPerMinute: 1,
      rateLimitWindowMs: 60_000,
      noticeAfterMs: 1_000,
      notice: () => controller.abort(new Error('SIGINT')),
      clock: manualClock(),
    });
    try {
      const config = [desired('first.example'), desired('second.example')];
      const planned = await planFor(config);
      const result = await applyPlan(planned, byDomain(config), api, { parallelism: 2, signal: controller.signal });
      expect(result.interrupted).toBe(true);
      expect(result.changes).toEqual([
        { action: 'create', domain: 'first.example', id: 1, outcome: 'applied' },
        { action: 'create', domain: 'second.example', id: null, ...INTERRUPTED },
      ]);
      expect(api.stats.requests).toBe(1);
      expect(result.verification).toEqual({ status: 'not_needed', divergences: [] });
      expect(await domainsInDb(fx.server)).toEqual(['first.example']);
    } finally {
      await api.close();
    }
  });

  test('the run leaves no listener of its own on the signal (one per change would add up over a long run)', async () => {
    const controller = new AbortController();
    const config = ['a', 'b', 'c'].map((name) => desired(`${name}.example`));
    const result = await applyPlan(await planFor(config), byDomain(config), fx.api, { signal: controller.signal });
    expect(result.counts).toMatchObject({ applied: 3 });
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});
