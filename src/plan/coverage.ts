/**
 * Coverage: how much of the account this configuration manages, counted over
 * the live records (driftctl's idea, for websites). A property of the account
 * and the configuration, not of one run: --only/--skip do not change it. The
 * planner counts while it walks the live sites (one pass at 100,000 sites);
 * this module turns the counts into the plan's `Coverage`. Pure.
 */
import type { DuplicateDomain } from '../model/domain.js';
import type { Coverage } from '../model/plan.js';

/** What the planner counted, one per live domain (the oldest record of a duplicated domain). */
export interface CoverageCounts {
  /** Listed in the configuration (wherever `manage` is). */
  listed: number;
  /** Unlisted, outside `manage`. */
  outOfScope: number;
  /** Unlisted, inside `manage`. */
  unlistedInScope: number;
  /** Of those, the ones prune deletes (prune on, not protected), --only/--skip or not: a delete is management too. */
  pruned: number;
}

export function coverageOf(counts: CoverageCounts, duplicates: readonly DuplicateDomain[]): Coverage {
  const managed = counts.listed + counts.pruned;
  const kept = counts.unlistedInScope - counts.pruned;
  const duplicateCount = duplicates.reduce((n, duplicate) => n + duplicate.others.length, 0);
  const live = managed + counts.outOfScope + kept + duplicateCount;
  return {
    live,
    managed,
    unmanaged: live - managed,
    outOfScope: counts.outOfScope,
    kept,
    duplicates: duplicateCount,
    // Rounded down, so one unmanaged site never shows as 100%.
    percent: live === 0 ? null : Math.floor((managed * 1000) / live) / 10,
  };
}
