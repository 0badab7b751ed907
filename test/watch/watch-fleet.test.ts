/**
 * `sitesync watch` over a fleet (issue 34) on the fleet simulator: twelve
 * installations, each its own origin on its own loopback address, checked
 * side by side (--concurrency 4) and each once a cycle; drift injected on
 * some shows within one interval and is healed with exactly one write per
 * site; the simulator's own window per client never answers 429.
 */
import { describe, expect, it } from 'vitest';
import { startFleet } from '../../bench/fleet/simulator.js';
import { tempDir } from '../helpers/temp.js';
import { fleetConfig, MINUTE, useCleanups, watchClock, watchInProcess } from './support.js';

const INSTALLATIONS = 12;
const SITES = 120;
const cleanups = useCleanups();

describe('watch over a fleet of installations', () => {
  it('checks every installation once a cycle, side by side, and heals drift with one write per site', async () => {
    const clock = watchClock(Date.parse('2026-07-06T08:00:00Z'));
    const fleet = await startFleet({ installations: INSTALLATIONS, websites: SITES, latencyMs: 5, clock: clock.now });
    cleanups.push(() => fleet.close());
    const dir = tempDir('watch-fleet');
    const env = fleetConfig(fleet, dir, SITES);
    const watch = await watchInProcess({
      source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: true },
      intervalMs: 5 * MINUTE,
      budgetPerMinute: 20,
      concurrency: 4,
      renotifyMs: 24 * 60 * MINUTE,
      heal: { mode: 'drift', maxPerCycle: 5, allowDelete: [], windows: [], maxFailures: 3 },
      webhooks: [],
      clock,
    });
    cleanups.push(() => watch.close());
    await watch.run(1);
    expect(fleet.listings.map((starts) => starts.length)).toEqual(Array(INSTALLATIONS).fill(1));

    const drifted = [...(await fleet.drift(3, [7, 8])), ...(await fleet.drift(9, [0]))];
    await watch.run(2);
    const healed = watch.lines.filter((line) => line.msg === 'self-heal applied').map((line) => line.domain);
    expect(healed.sort()).toEqual([...drifted].sort());
    await watch.run(3);
    expect(fleet.listings.map((starts) => starts.length)).toEqual(Array(INSTALLATIONS).fill(3));
    expect(watch.watcher.status().targets.every((target) => target.counts?.in_sync === SITES)).toBe(true);
    expect(fleet.doubleWrites()).toEqual([]);
    expect(fleet.writes.map((write) => write.site).sort()).toEqual([...drifted].sort());
    expect(fleet.throttled).toBe(0);
  });
});
