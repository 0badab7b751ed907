/**
 * Coverage: how much of the account this configuration manages, counted over
 * the live records (driftctl's idea, for websites). A property of the account
 * and the configuration, not of one run: --only/--skip do not change it. Pure.
 */
import type { DuplicateDomain } from '../model/domain.js';
import type { Coverage, PlanPolicy } from '../model/plan.js';
import { scopeOf } from './scope.js';

/**
 * `liveDomains`: the canonical domains of the live sites (one per domain);
 * `duplicates`: the other records of a domain held more than once.
 */
export function coverageOf(
  liveDomains: Iterable<string>,
  duplicates: readonly DuplicateDomain[],
  listed: ReadonlySet<string>,
  policy: PlanPolicy,
): Coverage {
  const scope = scopeOf(policy);
  let managed = 0;
  let outOfScope = 0;
  let kept = 0;
  for (const domain of liveDomains) {
    if (listed.has(domain)) managed += 1;
    else if (!scope.inScope(domain)) outOfScope += 1;
    else if (policy.prune && !scope.isProtected(domain))
      managed += 1; // a delete is management too
    else kept += 1;
  }
  const duplicateCount = duplicates.reduce((n, duplicate) => n + duplicate.others.length, 0);
  const live = managed + outOfScope + kept + duplicateCount;
  return {
    live,
    managed,
    unmanaged: live - managed,
    outOfScope,
    kept,
    duplicates: duplicateCount,
    percent: live === 0 ? null : Math.floor((managed * 1000) / live) / 10,
  };
}
