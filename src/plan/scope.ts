/**
 * Which domains a plan may touch: the configuration's `manage` scope, the
 * `protect` list, and the command line's --only / --skip. Pure.
 */

import { globToRegExp } from '../model/glob.js';
import type { PlanPolicy } from '../model/plan.js';

export interface Scope {
  /** Inside `manage`: the planner may look at it. */
  inScope(domain: string): boolean;
  /** Passes --only / --skip. */
  selected(domain: string): boolean;
  /** Matches `protect`: never pruned. */
  isProtected(domain: string): boolean;
}

export function scopeOf(policy: PlanPolicy): Scope {
  const included = anyOf(policy.manage.include);
  const excluded = anyOf(policy.manage.exclude);
  const only = policy.only.length === 0 ? () => true : anyOf(policy.only);
  const skipped = anyOf(policy.skip);
  // Without --only and --skip (the usual run), one call per site rather than three.
  const selectsAll = policy.only.length === 0 && policy.skip.length === 0;
  return {
    inScope: (domain) => included(domain) && !excluded(domain),
    selected: selectsAll ? () => true : (domain) => only(domain) && !skipped(domain),
    isProtected: anyOf(policy.protect),
  };
}

/** One matcher for a list of globs: a single regular expression, or a constant for the common cases. */
function anyOf(globs: readonly string[]): (domain: string) => boolean {
  if (globs.length === 0) return () => false;
  if (globs.includes('*')) return () => true;
  const combined = new RegExp(globs.map((glob) => `(?:${globToRegExp(glob).source})`).join('|'));
  return (domain) => combined.test(domain);
}
