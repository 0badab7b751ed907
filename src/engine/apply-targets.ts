/**
 * `sitesync apply` when the configuration declares targets: each chosen
 * target runs the single-target apply (from the configuration, or its part of
 * a saved plan with its own admission, signature and freshness check and its
 * own key), at most --target-parallelism at once; one target's failure or
 * stale part never stops another, unless --all-or-nothing, which waits until
 * every target has passed its checks before any writes. Then one report.
 */
import { basename, dirname, extname, join } from 'node:path';
import { mostSevere } from '../cli/exit-code.js';
import type { Io } from '../cli/io.js';
import { readSyncWriteOnly } from '../cli/option-values.js';
import type { SharedOptions } from '../cli/shared-options.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { jsonDocument } from '../model/text.js';
import { type SavedPlan, type SavedPlanSet, savedPlanOf } from '../plan/index.js';
import { APPLY_RESULT_FORMAT_VERSION } from '../render/apply-result.js';
import { renderApplyError } from '../render/error-document.js';
import { renderHuman } from '../render/index.js';
import { type ApplyRun, askYes, refuseWithoutPrompt, startRun } from './apply-steps.js';
import { AskOnce } from './ask-once.js';
import type { BaselineAt } from './baseline.js';
import { PatternsAcrossTargets } from './patterns-across-targets.js';
import {
  fanOut,
  refuseConnectionFlags,
  selectTargets,
  spanDomains,
  type TargetOutcome,
  targetOptions,
  targetParallelism,
} from './targets.js';

/** The single-target apply of one target: from the configuration (`saved` undefined) or a saved plan. */
export type ApplyOne = (run: ApplyRun, io: Io, saved?: SavedPlan) => Promise<number>;

/** A saved plan over targets, and the file it came from (for messages). */
export interface PlanSetFile {
  file: string;
  plan: SavedPlanSet;
}

export async function applyTargets(
  declared: readonly TargetDeclaration[],
  base: ApplyRun,
  io: Io,
  applyOne: ApplyOne,
  /** `set`: apply its parts; else plan each target, classified against `baseline` (resolved once for all). */
  options: { set?: PlanSetFile; baseline?: BaselineAt | undefined },
): Promise<number> {
  const { shared, flags } = base;
  const { set } = options;
  refuseConnectionFlags(shared);
  const chosen = chosenTargets(declared, shared, set);
  // From the configuration without --auto-approve: one question for every target, once all have planned.
  const askOnce = set === undefined && flags.autoApprove !== true ? askingOnce(chosen, shared, io) : undefined;
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
  const everyAtOnce =
    barrier !== undefined || askOnce !== undefined || only?.undecided === true || allowDelete !== undefined;
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
      ...(base.mark !== undefined && { mark: base.mark }),
    };
    if (barrier) run.beforeWrites = () => barrier.arrive(target.name);
    if (allowDelete) run.allowDeleteAcrossTargets = allowDelete.hookFor(target.name, true);
    if (askOnce) run.confirm = (plan, url) => askOnce.confirm(target.name, plan, url, targetIo.print);
    try {
      const part = set?.plan.targets.find((entry) => entry.name === target.name);
      const code = await applyOne(run, targetIo, part && savedPlanOf(part));
      barrier?.finish(target.name, code === 0);
      return { code };
    } catch (error) {
      barrier?.finish(target.name, false);
      throw error;
    } finally {
      askOnce?.finish(target.name);
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

/** The one question of an interactive apply over targets (refused off a terminal, before anything is read). */
function askingOnce(chosen: readonly TargetDeclaration[], shared: SharedOptions, io: Io): AskOnce {
  refuseWithoutPrompt(io);
  return new AskOnce(
    chosen.map((target) => target.name),
    {
      render: (plan, target) => renderHuman(plan, { color: shared.color, target }),
      ask: (question) => askYes(io, question),
    },
  );
}

/** The targets a run applies: chosen by --target among the declared ones, or among the saved plan's parts. */
export function chosenTargets(
  declared: readonly TargetDeclaration[],
  shared: Pick<SharedOptions, 'targets'>,
  set?: PlanSetFile,
): TargetDeclaration[] {
  return set === undefined ? selectTargets(declared, shared.targets) : partsTargets(declared, set, shared.targets);
}

/** The saved plan's parts chosen by --target; each must be a target the configuration declares. */
function partsTargets(
  declared: readonly TargetDeclaration[],
  set: PlanSetFile,
  patterns: readonly string[],
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
  return selectTargets(pool, patterns);
}

/** With targets, each target's journal is its own file: `apply-journal.jsonl` → `apply-journal.prod.jsonl`. */
export function journalFor(file: string, name: string): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext)}.${name}${ext}`);
}

/**
 * --all-or-nothing: each target arrives here after its checks, just before
 * its first write; when every target has arrived or ended, all write, or
 * (when one ended otherwise than done) none does.
 */
class AllOrNothing {
  readonly #pending: Set<string>;
  readonly #waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  readonly #failed: string[] = [];

  constructor(names: readonly string[]) {
    this.#pending = new Set(names);
  }

  arrive(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#pending.delete(name);
      this.#settle();
    });
  }

  finish(name: string, ok: boolean): void {
    if (!this.#pending.delete(name)) return;
    if (!ok) this.#failed.push(name);
    this.#settle();
  }

  #settle(): void {
    if (this.#pending.size > 0) return;
    const failed = this.#failed;
    for (const waiter of this.#waiting.splice(0)) {
      if (failed.length === 0) waiter.resolve();
      else {
        const which = failed.join(', ');
        waiter.reject(
          new SitesyncError(
            'stale_plan',
            `nothing applied (--all-or-nothing): target ${which} cannot be applied; this target's part was not applied either`,
          ),
        );
      }
    }
  }
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
 * `{formatVersion: "3.0", ok, targets}` (schemas/apply-targets.schema.json): each
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
  return jsonDocument({ formatVersion: APPLY_RESULT_FORMAT_VERSION, ok, targets });
}
