// A 500 on a request that carries a list longer than the service's column:
// the failure names the field that is likely too long (the real service
// answers 500 past 65,535 bytes; the reference server's SQLite has no limit,
// so the fault proxy plays the service's 500). Both server modes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { plan } from '../../src/plan/index.js';
import { type FaultProxy, scripted, startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, policy } from '../plan/builders.js';
import { type ApplyFixture, MODES, startFixture, testClient } from './support.js';

/** 5,000 distinct /32 entries: about 75 KB once joined by newlines. */
const HUGE_IPS = Array.from({ length: 5_000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1/32`);

describe.each(MODES)('a 500 on a large field (%s)', (mode) => {
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

  it('says which field is likely too long, and only then', async () => {
    const config = [desired('big.example', { excludeIps: HUGE_IPS }), desired('small.example', { email: true })];
    const planned = plan(config, await fx.api.listWebsites(), policy());
    proxy.setPlan(scripted(['server-500', 'server-500'], 'POST'));
    const faulty = testClient(proxy.url, fx.server.key, { retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 5 } });
    try {
      const result = await applyPlan(planned, new Map(config.map((site) => [site.domain, site])), faulty, {
        parallelism: 1,
      });
      const reasons = new Map(result.changes.map((change) => [change.domain, change.reason ?? '']));
      expect(reasons.get('big.example')).toMatch(
        /exclude_ips is likely too long \(\d{2},\d{3} bytes sent; the service's columns hold 65,535 bytes\)/,
      );
      expect(reasons.get('small.example')).not.toContain('too long');
    } finally {
      await faulty.close();
    }
  });
});
