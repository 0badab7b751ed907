/**
 * Apply over several targets (docs/config.md, Targets): each chosen target
 * runs the single-target apply (engine/apply-target.ts: from the
 * configuration, or its part of a saved plan with its own admission,
 * signature and freshness check and its own key), at most `targetParallelism`
 * at once, in two steps: every target's checks (nothing written), then the
 * writes of the targets that passed. Between them, the barrier: a pattern
 * that matched nothing in any target stops every write, and with
 * `allOrNothing` so does one target that cannot be applied. Otherwise one
 * target's failure or stale part never stops another. The outcomes come back
 * as values, in target order.
 */
import { basename, dirname, extname, join } from 'node:path';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { type SavedPlanSet, savedPlanOf } from '../plan/index.js';
import { type ApplyOutcome, type ApplyPorts, type ApplyRequest, checkTarget, type Ready } from './apply-target.js';
import type { AskOnce } from './ask-once.js';
import type { BaselineAt } from './baseline.js';
import type { EngineContext } from './context.js';
import { PatternsAcrossTargets } from './patterns-across-targets.js';
import type { TargetSettled } from './plan-targets.js';
import { type Settled, settleBounded } from './pool.js';
import { namesOf, type RunRequest } from './request.js';
import { refuseConnectionFlags, refuseUnpinnedTargets, selectTargets, spanDomains, targetOptions } from './targets.js';

/** A saved plan over targets, and the file it came from (for messages). */
export interface PlanSetFile {
  file: string;
  plan: SavedPlanSet;
}

export interface TargetsApplyRequest extends ApplyRequest {
  /** Targets applied at once (every target at once when a barrier needs it). */
  targetParallelism: number;
  allOrNothing: boolean;
}

/** What the caller gives each target's run: its own context (events named after it) and ports (a journal). */
export interface PerTarget {
  context: EngineContext;
  ports?: Pick<ApplyPorts, 'openJournal' | 'confirm'>;
}

export interface TargetsApplyOptions {
  /** Apply this saved plan's parts; else plan each target, classified against `baseline` (resolved once for all). */
  set?: PlanSetFile | undefined;
  baseline?: BaselineAt | undefined;
  /** Called once the targets are chosen, before any starts. */
  begin?: (chosen: readonly TargetDeclaration[]) => void;
  /**
   * An interactive apply's one question for every target (./ask-once.ts),
   * asked once each target has a plan to confirm or has ended: then every
   * target checks at once.
   */
  askOnce?: (() => AskOnce | undefined) | undefined;
  /** Called as each target starts. */
  started: (target: TargetDeclaration) => PerTarget;
  /** Called as each target ends, before the others have. */
  ended?: (target: TargetDeclaration, settled: Settled<ApplyOutcome>) => void;
}

export async function applyTargets(
  declared: readonly TargetDeclaration[],
  request: TargetsApplyRequest,
  context: EngineContext,
  options: TargetsApplyOptions,
): Promise<TargetSettled<ApplyOutcome>[]> {
  const { set } = options;
  refuseConnectionFlags(request);
  const chosen = chosenTargets(declared, request, set);
  refuseUnpinnedTargets(request, chosen, context);
  // A saved plan refuses --only and --sync-write-only: only a run from the configuration needs the span.
  const syncSites = request.syncWriteOnly === false ? [] : request.syncWriteOnly.sites;
  const span = set === undefined ? await spanDomains(request, chosen, syncSites, context) : undefined;
  // An --only that no target configures is decided by every target's listing, before any target writes.
  const names = namesOf(request);
  const only = set === undefined ? PatternsAcrossTargets.only(request.only, chosen, span, names.only) : undefined;
  // An --allow-delete may name any target's delete; one naming none is refused before any target writes.
  const allowDelete = PatternsAcrossTargets.allowDelete(request.acks.allowDelete, chosen, names.allowDelete);
  options.begin?.(chosen);
  // The one question waits for every target's plan, so none may wait for a free slot.
  const bound = options.askOnce === undefined ? request.targetParallelism : chosen.length;
  // Step 1, every target: its checks, nothing written.
  const checked = await settleBounded(chosen, bound, async (target) => {
    const mine = options.started(target);
    const targetRequest: ApplyRequest = {
      ...targetOptions(request, target, context.cwd),
      ...(span && { spanDomains: span }),
      ...(only && { onlyAcrossTargets: only.hookFor(target.name, false) }),
      baselineAt: options.baseline,
    };
    const ports: ApplyPorts = {
      ...mine.ports,
      ...(allowDelete && { allowDeleteAcrossTargets: allowDelete.hookFor(target.name, false) }),
    };
    try {
      const part = set?.plan.targets.find((entry) => entry.name === target.name);
      const source = part && { saved: savedPlanOf(part), label: `${set?.file} (target ${target.name})` };
      return await checkTarget(targetRequest, mine.context, ports, source);
    } finally {
      options.askOnce?.()?.finish(target.name);
      only?.end(target.name);
      allowDelete?.end(target.name);
    }
  });
  // Step 2, the barrier: a pattern that matched nothing anywhere, or (all or nothing) a target that cannot be applied.
  const refusal = only?.refusal() ?? allowDelete?.refusal();
  const blocked = request.allOrNothing ? blockingTargets(chosen, checked) : [];
  const stop = refusal ?? (blocked.length > 0 ? allOrNothingRefusal(blocked) : undefined);
  // Step 3, every ready target: its writes.
  const ended = await settleBounded(
    chosen,
    bound,
    async (_, index) => {
      const end = checked[index] as Settled<ApplyOutcome | Ready>;
      if (!end.ok) throw end.error;
      if (end.value.kind !== 'ready') return end.value;
      if (stop === undefined) return end.value.write();
      await end.value.release();
      throw stop;
    },
    options.ended,
  );
  if (refusal !== undefined) throw refusal;
  return ended.map((end, index) => ({ ...end, target: chosen[index] as TargetDeclaration }));
}

/** The targets that will not write (an error, a refusal): with all-or-nothing, no target writes then. */
function blockingTargets(
  chosen: readonly TargetDeclaration[],
  checked: readonly Settled<ApplyOutcome | Ready>[],
): string[] {
  return chosen
    .filter((_, index) => {
      const end = checked[index] as Settled<ApplyOutcome | Ready>;
      return !end.ok || end.value.kind === 'refused';
    })
    .map((target) => target.name);
}

function allOrNothingRefusal(blocked: readonly string[]): SitesyncError {
  return new SitesyncError(
    'stale_plan',
    `nothing applied (--all-or-nothing): target ${blocked.join(', ')} cannot be applied; this target's part was not applied either`,
  );
}

/** The targets a run applies: chosen by --target among the declared ones, or among the saved plan's parts. */
export function chosenTargets(
  declared: readonly TargetDeclaration[],
  shared: Pick<RunRequest, 'targets' | 'names'>,
  set?: PlanSetFile,
): TargetDeclaration[] {
  const flag = namesOf(shared).target;
  return set === undefined
    ? selectTargets(declared, shared.targets, flag)
    : partsTargets(declared, set, shared.targets, flag);
}

/** The saved plan's parts chosen by --target; each must be a target the configuration declares. */
function partsTargets(
  declared: readonly TargetDeclaration[],
  set: PlanSetFile,
  patterns: readonly string[],
  flag: string,
): TargetDeclaration[] {
  const inFile = set.plan.targets.map((part) => part.name);
  const missing = inFile.filter((name) => !declared.some((target) => target.name === name));
  if (missing.length > 0) {
    throw new SitesyncError(
      'usage',
      `${set.file} holds target ${missing.join(', ')}, which the configuration does not declare: make the plan again`,
    );
  }
  const pool = declared.filter((target) => inFile.includes(target.name));
  return selectTargets(pool, patterns, flag);
}

/** With targets, each target's journal is its own file: `apply-journal.jsonl` → `apply-journal.prod.jsonl`. */
export function journalFor(file: string, name: string): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.${name}${ext}`);
}
