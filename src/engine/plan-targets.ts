/**
 * Plan over several targets (docs/config.md, Targets): every chosen target
 * planned by the single-target plan (engine/plan-target.ts), at most
 * `targetParallelism` at once, each classified against its files at the one
 * baseline commit; one target's failure never stops another. An --only that
 * matches nothing in any target is refused once all have listed.
 */
import type { TargetDeclaration } from '../model/desired-state.js';
import { resolveBaseline } from './baseline.js';
import type { EngineContext } from './context.js';
import { PatternsAcrossTargets } from './patterns-across-targets.js';
import { type PlannedTarget, type PlanRequest, planTarget } from './plan-target.js';
import { type Settled, settleBounded } from './pool.js';
import { namesOf } from './request.js';
import { refuseConnectionFlags, refuseUnpinnedTargets, selectTargets, spanDomains, targetOptions } from './targets.js';

export interface TargetsRunOptions<T> {
  targetParallelism: number;
  /** Called once the targets are chosen, before any starts. */
  begin?: (chosen: readonly TargetDeclaration[]) => void;
  /** Called as each target starts: its context (events named after it). */
  started: (target: TargetDeclaration) => EngineContext;
  /** Called as each target ends, before the others have. */
  ended?: (target: TargetDeclaration, settled: Settled<T>) => void;
}

/** One target's end, in the order the targets were chosen. */
export type TargetSettled<T> = Settled<T> & { target: TargetDeclaration };

export async function planTargets(
  declared: readonly TargetDeclaration[],
  request: PlanRequest,
  context: EngineContext,
  options: TargetsRunOptions<PlannedTarget>,
): Promise<TargetSettled<PlannedTarget>[]> {
  refuseConnectionFlags(request);
  const names = namesOf(request);
  const chosen = selectTargets(declared, request.targets, names.target);
  refuseUnpinnedTargets(request, chosen, context);
  // Resolved once: every target reads its files at the same commit.
  const baselineAt = await resolveBaseline(request.files, request, context);
  const { syncWriteOnly } = request;
  const span = await spanDomains(request, chosen, syncWriteOnly === false ? [] : syncWriteOnly.sites, context);
  const only = PatternsAcrossTargets.only(request.only, chosen, span, names.only);
  const work = async (target: TargetDeclaration) => {
    const targetRequest: PlanRequest = {
      ...targetOptions(request, target, context.cwd),
      ...(span && { spanDomains: span }),
      // Planning writes nothing: no target waits; the run refuses a typo once all have listed.
      ...(only && { onlyAcrossTargets: only.hookFor(target.name, false) }),
      baselineAt,
    };
    try {
      return await planTarget(targetRequest, options.started(target));
    } finally {
      only?.end(target.name);
    }
  };
  options.begin?.(chosen);
  const settled = await settleBounded(chosen, options.targetParallelism, work, options.ended);
  const refusal = only?.refusal();
  if (refusal !== undefined) throw refusal;
  return settled.map((end, index) => ({ ...end, target: chosen[index] as TargetDeclaration }));
}
