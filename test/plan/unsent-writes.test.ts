// Never lose a write-only change when the applied tag moves (src/plan/unsent-writes.ts):
// what a plan against the applied commit would send and the given plan does not.
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { Baseline } from '../../src/model/plan.js';
import type { DesiredWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { unsentWrites } from '../../src/plan/unsent-writes.js';
import { desired, live, policy } from './builders.js';

const baselineAt = (commit: string, websites: DesiredWebsite[]): Baseline => ({
  ref: { ref: 'sitesync-applied', commit: commit.repeat(40), source: 'option' },
  websites,
  policy: DEFAULT_POLICY,
});

const unreadable = { writeOnly: ['excludeParams' as const] };
// Since the applied commit: a.com's exclude_params and email changed, b.com's exclude_params did not.
const now = [
  desired('a.com', { excludeParams: ['ref', 'utm'], email: true }),
  desired('b.com', { excludeParams: ['x'] }),
];
const current = [live(1, 'a.com', {}, unreadable), live(2, 'b.com', {}, unreadable), live(3, 'gone.com')];
const applied = baselineAt('a', [
  desired('a.com', { excludeParams: ['ref'] }),
  desired('b.com', { excludeParams: ['x'] }),
]);

describe('unsentWrites', () => {
  it('names the write-only values changed since the applied commit that a plan without it misses', () => {
    const given = plan(now, current, policy({ prune: true }));
    expect(given.changes.map((change) => change.domain)).toEqual(['gone.com', 'a.com']);
    expect(unsentWrites(given, now, current, policy({ prune: true }), applied)).toEqual([
      { domain: 'a.com', fields: ['excludeParams'] },
    ]);
  });

  it('nothing is missing from a plan judged against the applied commit, or one that sends the value', () => {
    const judged = plan(now, current, policy(), applied);
    expect(unsentWrites(judged, now, current, policy(), applied)).toEqual([]);
    const resent = plan(now, current, policy({ syncWriteOnly: true, syncWriteOnlyFields: ['excludeParams'] }));
    expect(unsentWrites(resent, now, current, policy(), applied)).toEqual([]);
  });

  it('a plan judged against another commit misses what changed since the applied one', () => {
    const other = baselineAt('b', now);
    const given = plan(now, current, policy(), other);
    expect(unsentWrites(given, now, current, policy(), applied)).toEqual([
      { domain: 'a.com', fields: ['excludeParams'] },
    ]);
  });
});
