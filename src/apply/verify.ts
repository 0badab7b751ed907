/**
 * The read-back after an apply: every site a change touched is read again
 * (listing or per-site reads, whichever is fewer requests) and re-planned
 * against the configuration. The re-plan of the touched sites must be empty;
 * whatever it still contains is what the server did not take, and is reported
 * rather than silently accepted.
 */
import type { WebsitesApi } from '../api/types.js';
import type { ChangeResult, Divergence, Verification } from '../model/apply-result.js';
import { isSitesyncError } from '../model/errors.js';
import type { FieldChange, Plan, PlanPolicy } from '../model/plan.js';
import type { DesiredWebsite, LiveWebsite } from '../model/website.js';
import { plan as replan } from '../plan/index.js';
import { type ReadTarget, readTargets } from './read-back.js';

/** Everything in scope, nothing pruned, no limits: only "does each site match its configuration?". */
const REPLAN_POLICY: PlanPolicy = {
  prune: false,
  manage: { include: ['*'], exclude: [] },
  protect: [],
  limits: { maxDeletes: Number.MAX_SAFE_INTEGER, maxChangePercent: 100 },
  only: [],
  skip: [],
  syncWriteOnly: false,
};

export async function verifyApplied(
  plan: Plan,
  results: readonly ChangeResult[],
  desired: ReadonlyMap<string, DesiredWebsite>,
  api: WebsitesApi,
  liveCount: number | undefined,
  written: ReadonlyMap<number, LiveWebsite> = new Map(),
): Promise<Verification> {
  const applied = results.filter((result) => result.outcome === 'applied');
  if (applied.length === 0) return { status: 'not_needed', divergences: [] };
  const targets: ReadTarget[] = applied.map((result) => ({ domain: result.domain, id: result.id }));
  let live: Map<string, LiveWebsite | undefined>;
  try {
    live = await readTargets(api, targets, liveCount ?? liveCountAfter(plan));
  } catch (error) {
    const reason = isSitesyncError(error) ? error.message : String(error);
    return { status: 'unavailable', divergences: [], error: `could not read the sites back: ${reason}` };
  }
  const divergences: Divergence[] = [];
  const touchedDesired: DesiredWebsite[] = [];
  const touchedLive: LiveWebsite[] = [];
  for (const result of applied) {
    const site = live.get(result.domain);
    if (result.action === 'delete') {
      if (site) divergences.push({ domain: result.domain, kind: 'still_exists' });
      continue;
    }
    const wanted = desired.get(result.domain);
    if (wanted) touchedDesired.push(wanted);
    if (site) touchedLive.push(site);
  }
  for (const change of replan(touchedDesired, touchedLive, REPLAN_POLICY).changes) {
    if (change.action === 'create') divergences.push({ domain: change.domain, kind: 'missing' });
    if (change.action === 'update') {
      const otherWriter = tookOurWrite(change.id, desired.get(change.domain), written);
      divergences.push(
        ...change.fields.map((field) => ({
          domain: change.domain,
          ...fieldDivergence(field),
          ...(otherWriter && { otherWriter }),
        })),
      );
    }
  }
  return { status: 'checked', divergences };
}

/** The service answered our write with the configured values: a later difference is someone else's write. */
function tookOurWrite(
  id: number,
  wanted: DesiredWebsite | undefined,
  written: ReadonlyMap<number, LiveWebsite>,
): boolean {
  const answer = written.get(id);
  if (wanted === undefined || answer === undefined) return false;
  return replan([wanted], [answer], REPLAN_POLICY).changes.every(
    (change) => change.action === 'update' && change.fields.every((field) => field.writeOnly === true),
  );
}

/** The field, the configured value and the one read back; a password only by name (its value never leaves Secret). */
function fieldDivergence(field: FieldChange): Pick<Divergence, 'kind' | 'field' | 'wanted' | 'actual'> {
  if (field.field === 'password') return { kind: 'field', field: field.field };
  return {
    kind: 'field',
    field: field.field,
    ...(field.after !== undefined && { wanted: field.after }),
    ...(field.before !== undefined && { actual: field.before }),
  };
}

/** Sites in the account after the apply, from the plan's counts (chooses listing vs per-site reads). */
export function liveCountAfter(plan: Plan): number {
  const { summary } = plan;
  return summary.create + summary.update + summary.unchanged + summary.outOfScope + summary.kept;
}
