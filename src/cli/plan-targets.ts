/**
 * `sitesync plan` when the configuration declares targets: the engine plans
 * every chosen target (engine/plan-targets.ts); this shows each target's
 * progress, then one report, one plan file over all, and the most severe
 * exit code.
 */
import { resolve } from 'node:path';
import type { PlannedTarget, PlanRequest } from '../engine/plan-target.js';
import { planTargets as planEachTarget } from '../engine/plan-targets.js';
import type { Settled } from '../engine/pool.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { createSavedPlanSet, serializeSavedPlanSet } from '../plan/index.js';
import type { TargetReport } from '../render/targets.js';
import { cliContext } from './events.js';
import { exitCodeFor, failureOf, mostSevere } from './exit-code.js';
import { aborted, type Io, writeAtomically } from './io.js';
import { acknowledgeFlags, applyCommand, renderTargetReports } from './plan-view.js';
import type { SharedOptions } from './shared-options.js';
import { TargetRuns } from './target-runs.js';

export interface PlanTargetsFlags {
  out?: string | undefined;
  detailedExitcode?: boolean | undefined;
}

export async function planTargets(
  declared: readonly TargetDeclaration[],
  request: PlanRequest,
  shared: SharedOptions,
  flags: PlanTargetsFlags,
  bound: number,
  io: Io,
): Promise<number> {
  const reports = new Map<string, TargetReport & { saved?: PlannedTarget['saved'] }>();
  let runs: TargetRuns | undefined;
  const ended = (target: TargetDeclaration, settled: Settled<PlannedTarget>) => {
    const view = runs as TargetRuns;
    const report: TargetReport & { saved?: PlannedTarget['saved'] } = {
      name: target.name,
      target: target.url,
      code: 0,
    };
    if (settled.ok) {
      const { plan, explanation, saved, attribution } = settled.value;
      report.code = exitCodeFor({ kind: 'planned', plan, detailedExitcode: flags.detailedExitcode === true });
      Object.assign(report, {
        target: settled.value.target,
        plan,
        acknowledge: acknowledgeFlags(plan),
        saved,
        ...(explanation && { explain: explanation }),
        ...(attribution && { attribution }),
      });
      view.end(target, report.code);
    } else {
      const failure = failureOf(settled.error, aborted(io, settled.error));
      Object.assign(report, { code: failure.code, error: failure.errorJson });
      view.end(target, failure.code, failure.message);
    }
    reports.set(target.name, report);
  };
  const context = cliContext(io, shared.logLevel);
  let outcomes: Awaited<ReturnType<typeof planEachTarget>>;
  try {
    outcomes = await planEachTarget(declared, request, context, {
      targetParallelism: bound,
      begin: (chosen) => {
        runs = new TargetRuns(io, chosen);
      },
      started: (target) => cliContext((runs as TargetRuns).start(target), shared.logLevel),
      ended,
    });
  } finally {
    runs?.finish();
  }
  const all = outcomes.map(
    ({ target }) => reports.get(target.name) as TargetReport & { saved?: PlannedTarget['saved'] },
  );
  if (flags.out !== undefined) {
    const parts = all.flatMap((report) => (report.saved ? [{ name: report.name, saved: report.saved }] : []));
    if (parts.length > 0) {
      writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlanSet(createSavedPlanSet(parts)), flags.out);
      const names = parts.map((part) => part.name).join(', ');
      io.stderr.write(
        `plan saved to ${flags.out} (targets ${names}): apply it with \`${applyCommand(shared, flags.out)}\`\n`,
      );
    }
  }
  io.stdout.write(
    renderTargetReports(
      all.map(({ saved: _, ...report }) => report),
      shared,
    ),
  );
  return mostSevere(all.map((report) => report.code));
}
