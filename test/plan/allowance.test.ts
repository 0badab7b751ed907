// The account's website allowance against a plan (src/plan/allowance.ts): the service
// refuses a create past the limit, and deletes run first, so they free room.
import { describe, expect, it } from 'vitest';
import { allowanceExcess } from '../../src/plan/allowance.js';
import { plan } from '../../src/plan/planner.js';
import { desired, live, policy } from './builders.js';

/** A plan of `creates` new sites and `deletes` pruned ones (limits out of the way). */
function planOf(creates: number, deletes: number) {
  const gone = Array.from({ length: deletes }, (_, i) => live(i + 1, `gone${i}.com`));
  const added = Array.from({ length: creates }, (_, i) => desired(`new${i}.com`));
  return plan(added, gone, policy({ prune: true, limits: { maxDeletes: 100, maxChangePercent: 100 } }));
}

describe('allowanceExcess', () => {
  it.each([
    ['creates that reach the limit exactly fit', 5, 0, 10, 5, undefined],
    ['one create past the limit is refused', 6, 0, 10, 5, { over: 1 }],
    ['deletes free room before the creates', 2, 2, 10, 10, undefined],
    ['deletes free only as much room as they take', 3, 2, 10, 10, { over: 1, deletes: 2 }],
    ['a plan without creates fits, even on an account already over its limit', 0, 1, 10, 20, undefined],
    ['no more creates are refused than the plan has', 2, 0, 10, 15, { over: 2, creates: 2 }],
    ['more deletes than sites held never count as room', 3, 2, 2, 0, { over: 1 }],
  ] as const)('%s', (_, creates, deletes, limit, held, expected) => {
    const excess = allowanceExcess(planOf(creates, deletes), limit, held);
    if (expected === undefined) expect(excess).toBeUndefined();
    else expect(excess).toEqual({ limit, held, creates, deletes, ...expected });
  });
});
