/**
 * `sitesync apply` when the configuration declares targets: each chosen
 * target runs the single-target apply (from the configuration, or its part of
 * a saved plan with its own admission, signature and freshness check and its
 * own key), at most --target-parallelism at once; one target's failure or
 * stale part never stops another, unless --all-or-nothing, which waits until
 * every target has passed its checks before any writes. Then one report.
 */
import { AllOrNothing, chosenTargets, journalFor, type PlanSetFile } from '../engine/apply-targets.js';
import type { BaselineAt } from '../engine/baseline.js';
import { PatternsAcrossTargets } from '../engine/patterns-across-targets.js';
import { refuseConnectionFlags, spanDomains, targetOptions } from '../engine/targets.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { type SavedPlan, savedPlanOf } from '../plan/index.js';
import { APPLY_RESULT_FORMAT_VERSION } from '../render/apply-result.js';
import { renderApplyError } from '../render/error-document.js';
import { type ApplyRun, startRun } from './apply-run.js';
import { mostSevere } from './exit-code.js';
import type { Io } from './io.js';
import { readSyncWriteOnly } from './option-values.js';
import { fanOut, type TargetOutcome, targetParallelism } from './target-runs.js';

/** The single-target apply of one target: from the configuration (`saved` undefined) or a saved plan. */
export type ApplyOne = (run: ApplyRun, io: Io, saved?: SavedPlan) => Promise<number>;

export async function applyTargets(
  declared: readonly TargetDeclaration[],
  base: ApplyRun,
  io: Io,
  applyOne: ApplyOne,
  /** `set`: apply its parts; else plan each target, classified against `baseline` (resolved once for all). */
  options: { set?: PlanSetFile | undefined; baseline?: BaselineAt | undefined },
): Promise<number> {
  const { shared, flags } = base;
  const { set } = options;
  refuseConnectionFlags(shared);
  if (set === undefined && flags.autoApprove !== true) {
    throw new SitesyncError(
      'usage',
      'with targets, apply asks no question: review a plan (sitesync plan --out plan.json) and apply that file, or pass --auto-approve',
    );
  }
  const chosen = chosenTargets(declared, shared, set);
  const barrier = flags.allOrNothing === true ? new AllOrNothing(chosen.map((target) => target.name)) : undefined;
  // A saved plan refuses --only and --sync-write-only: only a run from the configuration needs the span.
  const syncWriteOnly = readSyncWriteOnly(flags.syncWriteOnly);
  const syncSites = syncWriteOnly === false ? [] : syncWriteOnly.sites;
  const span = set === undefined ? await spanDomains(shared, chosen, syncSites, io) : undefined;
  // An --only that no target configures is decided by every target's listing, before any target writes.
  const only = set === undefined ? PatternsAcrossTargets.only(shared.only, chosen, span) : undefined;
  // An --allow-delete may name any target's delete; one naming none is refused before any target writes.
  const allowDelete = PatternsAcrossTargets.allowDelete(base.acks.allowDelete, chosen);
  // Every target must reach a barrier, so none may wait for a free slot.
  const everyAtOnce = barrier !== undefined || only?.undecided === true || allowDelete !== undefined;
  const bound = everyAtOnce ? chosen.length : targetParallelism(flags.targetParallelism);
  const outcomes = await fanOut<never>(chosen, bound, io, async (target, targetIo) => {
    const targetShared = {
      ...targetOptions(shared, target, io.cwd),
      ...(span && { spanDomains: span }),
      ...(only && { onlyAcrossTargets: only.hookFor(target.name, true) }),
    };
    const targetFlags = {
      ...flags,
      ...(flags.journal !== undefined && { journal: journalFor(flags.journal, target.name) }),
    };
    const run: ApplyRun = {
      ...startRun(targetShared, targetFlags, targetIo),
      started: base.started,
      ...(base.planFile !== undefined && { planFile: base.planFile }),
      ...(options.baseline !== undefined && { baselineAt: options.baseline }),
    };
    run.ports = {
      ...(barrier && { beforeWrites: () => barrier.arrive(target.name) }),
      ...(allowDelete && { allowDeleteAcrossTargets: allowDelete.hookFor(target.name, true) }),
    };
    try {
      const part = set?.plan.targets.find((entry) => entry.name === target.name);
      const code = await applyOne(run, targetIo, part && savedPlanOf(part));
      barrier?.finish(target.name, code === 0);
      return { code };
    } catch (error) {
      barrier?.finish(target.name, false);
      throw error;
    } finally {
      only?.end(target.name);
      allowDelete?.end(target.name);
    }
  });
  // Every target refused it before writing: one error for the run, as without targets.
  const refusal = only?.refusal() ?? allowDelete?.refusal();
  if (refusal !== undefined) throw refusal;
  io.stdout.write(shared.format === 'json' ? applyTargetsJson(outcomes) : applyTargetsHuman(outcomes));
  return mostSevere(outcomes.map((outcome) => outcome.code));
}

function applyTargetsHuman(outcomes: readonly TargetOutcome<never>[]): string {
  const parts = outcomes.map(({ target, stdout, error }) => {
    const body = stdout === '' || stdout.endsWith('\n') ? stdout : `${stdout}\n`;
    return `=== target ${target.name} (${target.url})\n${body}${error === undefined ? '' : `error: ${error}\n`}`;
  });
  const failed = outcomes.filter((outcome) => outcome.code !== 0).map((outcome) => outcome.target.name);
  const tail = failed.length === 0 ? 'all done' : `not done: ${failed.join(', ')}`;
  return `${parts.join('\n')}\nTargets: ${outcomes.length}; ${tail}.\n`;
}

/**
 * `{formatVersion: 2, ok, targets}` (schemas/apply-targets.schema.json): each
 * element is the target's own apply document (its refusal or error
 * included) plus `name` and `exitCode`.
 */
function applyTargetsJson(outcomes: readonly TargetOutcome<never>[]): string {
  const targets = outcomes.map(({ target, stdout, error, code }) => {
    // Every target's run writes its document, a failure too; this is only a guard.
    const text = stdout.trim() === '' ? renderApplyError({ code: 'internal', message: error ?? 'failed' }) : stdout;
    return { name: target.name, ...(JSON.parse(text) as Record<string, unknown>), exitCode: code };
  });
  const ok = outcomes.every((outcome) => outcome.code === 0);
  return `${JSON.stringify({ formatVersion: APPLY_RESULT_FORMAT_VERSION, ok, targets }, null, 2)}\n`;
}
