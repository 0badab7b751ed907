import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { PlanPolicy } from '../../src/model/plan.js';
import { type DesiredWebsite, FIELDS, type LiveWebsite, SETTING_NAMES, sameValue } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { scopeOf } from '../../src/plan/scope.js';
import { worldArb } from './arbitraries.js';
import { policy } from './builders.js';
import { applyInMemory } from './in-memory.js';

function readableDifferences(site: DesiredWebsite, current: LiveWebsite): string[] {
  return SETTING_NAMES.filter((name) => {
    if (current.settings[name] === undefined || site.ignoreChanges.includes(name)) return false;
    return !sameValue(FIELDS[name].canonical(current.settings[name]), site.settings[name]);
  });
}

describe('planner properties', () => {
  test.prop([worldArb], { seed: 5, numRuns: 300 })(
    'same input, byte-identical plan, whatever the input order',
    (world) => {
      const p: PlanPolicy = policy(world.policy);
      const first = JSON.stringify(plan(world.desired, world.live, p));
      expect(JSON.stringify(plan(world.desired, world.live, p))).toBe(first);
      expect(JSON.stringify(plan([...world.desired].reverse(), [...world.live].reverse(), p))).toBe(first);
    },
  );

  test.prop([worldArb], { seed: 7, numRuns: 300 })(
    'applying the plan yields the desired state, and planning again is empty',
    (world) => {
      const p: PlanPolicy = policy(world.policy);
      const first = plan(world.desired, world.live, p);
      const after = applyInMemory(first, world.live, world.desired);
      const byDomain = new Map(after.map((site) => [site.domain, site]));
      for (const change of first.changes) {
        if (change.action === 'delete') expect(byDomain.has(change.domain)).toBe(false);
      }
      const scope = scopeOf(p);
      for (const site of world.desired.filter((entry) => scope.selected(entry.domain))) {
        expect(readableDifferences(site, byDomain.get(site.domain)!)).toEqual([]);
      }
      const again = plan(world.desired, after, p);
      expect(again.changes).toEqual([]);
      expect(again.safety).toEqual([]);
    },
  );
});
