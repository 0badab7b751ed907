/**
 * `sitesync plan` when the configuration declares targets: every chosen
 * target planned by the engine at once (at most --target-parallelism at a
 * time), each classified against its files at the one baseline commit, then
 * one report, one plan file over all, and the most severe exit code.
 */
import { resolve } from 'node:path';
import { type BaselineAt, baselineFor, resolveBaseline } from '../engine/baseline.js';
import { PatternsAcrossTargets } from '../engine/patterns-across-targets.js';
import { type PlannedTarget, type PlanRequest, planTarget } from '../engine/plan-target.js';
import { refuseConnectionFlags, selectTargets, spanDomains, targetOptions } from '../engine/targets.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { createSavedPlanSet, serializeSavedPlanSet } from '../plan/index.js';
import type { TargetReport } from '../render/targets.js';
import { cliContext } from './events.js';
import { exitCodeFor, mostSevere } from './exit-code.js';
import { type Io, writeAtomically } from './io.js';
import { applyCommand, renderTargetReports } from './plan-view.js';
import type { RawBaselineOptions, SharedOptions } from './shared-options.js';
import { fanOut } from './target-runs.js';

export interface PlanTargetsFlags extends RawBaselineOptions {
  out?: string | undefined;
  detailedExitcode?: boolean | undefined;
}

/** Every chosen target planned at once (at most `bound` at a time), then one report and the most severe exit code. */
export async function planTargets(
  declared: TargetDeclaration[],
  request: PlanRequest,
  shared: SharedOptions,
  flags: PlanTargetsFlags,
  bound: number,
  io: Io,
): Promise<number> {
  refuseConnectionFlags(shared);
  const chosen = selectTargets(declared, shared.targets);
  // Resolved once: every target reads its files at the same commit.
  const at: BaselineAt | undefined = resolveBaseline(shared.files, flags, io);
  const { syncWriteOnly } = request;
  const span = await spanDomains(shared, chosen, syncWriteOnly === false ? [] : syncWriteOnly.sites, io);
  const only = PatternsAcrossTargets.only(shared.only, chosen, span);
  const outcomes = await fanOut<PlannedTarget>(chosen, bound, io, async (target, targetIo) => {
    const targetShared = {
      ...targetOptions(request, target, io.cwd),
      ...(span && { spanDomains: span }),
      // Planning writes nothing: no target waits; the run refuses a typo once all have listed.
      ...(only && { onlyAcrossTargets: only.hookFor(target.name, false) }),
    };
    try {
      const context = cliContext(targetIo, shared.logLevel);
      const planned = await planTarget(targetShared, context, baselineFor(targetShared, at, targetIo));
      const detailedExitcode = flags.detailedExitcode === true;
      return { code: exitCodeFor({ kind: 'planned', plan: planned.plan, detailedExitcode }), value: planned };
    } finally {
      only?.end(target.name);
    }
  });
  const refusal = only?.refusal();
  if (refusal !== undefined) throw refusal;
  const reports: TargetReport[] = outcomes.map(({ target, code, value, errorJson }) => ({
    name: target.name,
    target: value?.target ?? target.url,
    code,
    ...(value && { plan: value.plan }),
    ...(value?.explanation && { explain: value.explanation }),
    ...(errorJson !== undefined && { error: errorJson }),
  }));
  if (flags.out !== undefined) {
    const parts = outcomes.flatMap(({ target, value }) => (value ? [{ name: target.name, saved: value.saved }] : []));
    if (parts.length > 0) {
      writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlanSet(createSavedPlanSet(parts)), flags.out);
      const names = parts.map((part) => part.name).join(', ');
      io.stderr.write(
        `plan saved to ${flags.out} (targets ${names}): apply it with \`${applyCommand(shared, flags.out)}\`\n`,
      );
    }
  }
  io.stdout.write(renderTargetReports(reports, shared));
  return mostSevere(outcomes.map((outcome) => outcome.code));
}
