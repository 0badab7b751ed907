/**
 * The account's website allowance against a plan. The deployed service
 * refuses a create past its plan's limit (422 "You created too many
 * websites."), so a plan of 7 creates with room for 5 would send 5 and fail 2.
 * Deletes run before creates (apply's order), so they free room first. Pure.
 */
import type { Plan } from '../model/plan.js';

export interface AllowanceExcess {
  /** The account's website limit. */
  limit: number;
  /** Websites the account holds before the plan. */
  held: number;
  creates: number;
  deletes: number;
  /** How many of the creates the service would refuse. */
  over: number;
}

/** How far the plan goes past the allowance, or undefined when it fits (or creates nothing). */
export function allowanceExcess(plan: Plan, limit: number, held: number): AllowanceExcess | undefined {
  const creates = plan.changes.filter((change) => change.action === 'create').length;
  const deletes = plan.changes.filter((change) => change.action === 'delete').length;
  const after = Math.max(0, held - deletes) + creates;
  if (creates === 0 || after <= limit) return undefined;
  return { limit, held, creates, deletes, over: Math.min(creates, after - limit) };
}
