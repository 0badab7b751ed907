/**
 * Never lose a write-only change (docs/apply.md, "Moving the applied tag"):
 * the service never returns a password or `exclude_params`, so only the
 * baseline knows they changed. An apply that moves the applied tag from
 * commit A must send every write-only value the configuration changed since
 * A; a plan judged against another commit (or none) may miss some. This
 * plans again against A and lists what that plan would send and the given
 * plan does not. Pure: the configuration at A arrives loaded.
 */
import type { Baseline, Plan, PlanPolicy } from '../model/plan.js';
import type { DesiredWebsite, FieldName, LiveWebsite } from '../model/website.js';
import { plan } from './planner.js';

/** One site's write-only values changed since the applied commit that the plan does not send. */
export interface UnsentWrite {
  domain: string;
  fields: FieldName[];
}

export function unsentWrites(
  given: Plan,
  desired: readonly DesiredWebsite[],
  live: readonly LiveWebsite[],
  policy: PlanPolicy,
  applied: Baseline,
): UnsentWrite[] {
  // Judged against the applied commit itself: nothing can be missing.
  if (given.baseline?.commit === applied.ref.commit) return [];
  const sent = new Map(
    given.changes.map((change) => [change.domain, change.action === 'delete' ? [] : change.fields.map((f) => f.field)]),
  );
  const unsent: UnsentWrite[] = [];
  for (const change of plan(desired, live, policy, applied).changes) {
    if (change.action !== 'update') continue;
    const fields = change.fields
      .filter((field) => field.writeOnly === true && !(sent.get(change.domain) ?? []).includes(field.field))
      .map((field) => field.field);
    if (fields.length > 0) unsent.push({ domain: change.domain, fields });
  }
  return unsent;
}
