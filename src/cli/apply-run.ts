/**
 * One `sitesync apply` as the command line runs it: its flags read once into
 * the engine's request (`startRun`), then, per target, the engine's
 * `applyTarget` with the terminal's ports (prompt, journal file, progress
 * line) and its outcome shown and turned into an exit code (`applyOne`).
 */
import { resolve } from 'node:path';
import {
  type Answer,
  type ApplyOutcome,
  type ApplyPorts,
  type ApplyRequest,
  applyTarget,
  type SavedSource,
} from '../engine/apply-target.js';
import {
  applyTargets as applyEachTarget,
  journalFor,
  type PerTarget,
  type PlanSetFile,
} from '../engine/apply-targets.js';
import { AskOnce } from '../engine/ask-once.js';
import type { BaselineAt } from '../engine/baseline.js';
import type { Settled } from '../engine/pool.js';
import { refuseConnectionFlags } from '../engine/targets.js';
import type { DesiredState, TargetDeclaration } from '../model/desired-state.js';
import { isSitesyncError, SitesyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { SavedPlan } from '../plan/index.js';
import { confirmQuestion, staleRefusalText } from '../render/apply-result.js';
import { errorJsonOf } from '../render/error-document.js';
import { renderHuman } from '../render/index.js';
import { safetyRefusalText } from '../render/safety-refusal.js';
import type { ApplyRun } from './apply-checks.js';
import { ApplyOutput } from './apply-output.js';
import { applyTargetsHuman, applyTargetsJson } from './apply-targets.js';
import { cliContext } from './events.js';
import { exitCodeFor, failureOf, mostSevere } from './exit-code.js';
import { aborted, type Io } from './io.js';
import { openJournalFor } from './journal-file.js';
import { readSyncWriteOnly, targetParallelism } from './option-values.js';
import { followApply } from './progress.js';
import { type TargetIo, type TargetOutcome, TargetRuns } from './target-runs.js';

/** The engine's request for this run's target. */
function requestOf(run: ApplyRun): ApplyRequest {
  const { shared, flags } = run;
  return {
    ...shared,
    parallelism: run.parallelism,
    acks: run.acks,
    syncWriteOnly: readSyncWriteOnly(flags.syncWriteOnly),
    unlistedIsDrift: flags.unlistedIsDrift === true,
    baseline: flags.baseline,
    markApplied: flags.markApplied,
    baselineAt: run.baselineAt,
    started: run.started,
    mark: run.mark,
  };
}

/** A refusal or an error as the run's JSON document (written once: later calls do nothing). */
export function reportFailure(run: ApplyRun, error: unknown, io: Io): void {
  if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
    run.output.refused({ code: error.code, message: error.message });
  }
  run.output.failed(errorJsonOf(error, aborted(io, error)));
}

/** The apply of a configuration without targets: shown as it goes, a refusal or an error also its JSON document. */
export async function applyOne(run: ApplyRun, io: Io, saved?: SavedPlan, loaded?: DesiredState): Promise<number> {
  const context = cliContext(io, run.shared.logLevel);
  const asking = run.flags.autoApprove !== true;
  const stop = followApply(run.output, context, io, asking && io.prompt !== undefined, run.acks);
  try {
    // A saved plan was shown before the configuration was loaded (so an error document holds it).
    const source: SavedSource | undefined = saved && { saved, label: run.planFile ?? 'the plan file' };
    const ports: ApplyPorts = {
      ...(asking && saved === undefined && { confirm: (plan: Plan, target: string) => confirmed(io, plan, target) }),
      ...(run.flags.journal !== undefined && {
        openJournal: () => openJournalFor(io, resolve(io.cwd, run.flags.journal as string), run.shared.target?.name),
      }),
    };
    const outcome = await applyTarget(requestOf(run), context, ports, source, loaded);
    stop();
    return shown(outcome, run, io, source?.label);
  } catch (error) {
    stop();
    reportFailure(run, error, io);
    throw error;
  }
}

/** The outcome on stdout (and a refusal's reason on stderr), as its exit code. */
function shown(outcome: ApplyOutcome, run: ApplyRun, io: Io, label: string | undefined): number {
  const { output } = run;
  switch (outcome.kind) {
    case 'nothing_to_do':
      output.nothingToDo();
      return exitCodeFor({ kind: 'done' });
    case 'applied':
      output.result(outcome.result);
      return exitCodeFor({ kind: 'applied', result: outcome.result });
    case 'refused': {
      const { refusal } = outcome;
      if (refusal.reason === 'cancelled')
        return exitCodeFor({ kind: 'refused', code: output.cancelled(refusal.answer) });
      if (refusal.reason === 'stale') {
        const stale =
          label === undefined
            ? { what: 'the plan', rerun: 'sitesync apply' }
            : { what: label, rerun: `sitesync plan --out ${run.planFile ?? label}` };
        throw new SitesyncError('stale_plan', staleRefusalText(stale.what, refusal.moved, stale.rerun));
      }
      const code = refusal.reason === 'unsafe' ? 'unsafe_plan' : 'interrupted';
      const message =
        refusal.reason === 'unsafe' ? safetyRefusalText(refusal.refusal) : 'interrupted before applying anything';
      io.stderr.write(`${message}\n`);
      output.refused({ code, message });
      return exitCodeFor({ kind: 'refused', code });
    }
  }
}

/** `yes`, another answer, `eof` (Ctrl-D) or `interrupted` (Ctrl-C, or SIGTERM while asking). */
function confirmed(io: Io, plan: Plan, target: string): Promise<Answer> {
  return askYes(io, confirmQuestion(target, plan.summary));
}

/** Refused before anything is planned when no one can answer (not a terminal). */
function refuseWithoutPrompt(io: Io): void {
  if (io.prompt !== undefined) return;
  throw new SitesyncError(
    'usage',
    'not a terminal, so there is no one to confirm: pass --auto-approve, or apply a reviewed plan file (sitesync plan --out plan.json; sitesync apply plan.json)',
  );
}

/** The question asked; the answer as `yes`, another answer, `eof` or `interrupted`. */
async function askYes(io: Io, question: string): Promise<Answer> {
  refuseWithoutPrompt(io);
  let answer: string | undefined;
  try {
    answer = await (io.prompt as NonNullable<Io['prompt']>)(question);
  } catch (error) {
    if (isSitesyncError(error) && error.code === 'interrupted') return 'interrupted';
    throw error;
  }
  if (answer === undefined) return 'eof';
  return answer.trim() === 'yes' ? 'yes' : 'no';
}

/**
 * apply over the targets `targets:` declares: the engine applies each chosen
 * target (engine/apply-targets.ts); each shows its progress as the terminal
 * allows, then one report, and the most severe exit code.
 */
export async function applyTargets(
  declared: readonly TargetDeclaration[],
  base: ApplyRun,
  io: Io,
  options: { set?: PlanSetFile | undefined; baseline?: BaselineAt | undefined },
): Promise<number> {
  const { shared, flags } = base;
  const { set } = options;
  refuseConnectionFlags(shared);
  // From the configuration without --auto-approve: one question for every target, once all have planned.
  const asking = set === undefined && flags.autoApprove !== true;
  if (asking) refuseWithoutPrompt(io);
  let askOnce: AskOnce | undefined;
  let runs: TargetRuns | undefined;
  const mine = new Map<string, { run: ApplyRun; io: TargetIo; stop: () => void }>();
  const outcomes = new Map<string, TargetOutcome<Record<string, unknown> | undefined>>();
  const started = (target: TargetDeclaration): PerTarget => {
    const targetIo = (runs as TargetRuns).start(target);
    const run: ApplyRun = { ...base, output: new ApplyOutput(shared, targetIo) };
    const context = cliContext(targetIo, shared.logLevel);
    const part = set?.plan.targets.find((entry) => entry.name === target.name);
    if (part !== undefined) run.output.plan(part.plan, part.target, false, run.acks);
    mine.set(target.name, { run, io: targetIo, stop: followApply(run.output, context, targetIo, false, run.acks) });
    const { journal } = flags;
    const openTargetJournal = () =>
      openJournalFor(io, resolve(io.cwd, journalFor(journal as string, target.name)), target.name);
    const confirm = askOnce && ((plan: Plan, url: string) => askOnce!.confirm(target.name, plan, url, targetIo.print));
    return {
      context,
      ports: { ...(journal !== undefined && { openJournal: openTargetJournal }), ...(confirm && { confirm }) },
    };
  };
  const ended = (target: TargetDeclaration, settled: Settled<ApplyOutcome>) => {
    const { run, io: targetIo, stop } = mine.get(target.name) as { run: ApplyRun; io: TargetIo; stop: () => void };
    stop();
    let code: number;
    let failure: ReturnType<typeof failureOf> | undefined;
    try {
      if (!settled.ok) throw settled.error;
      code = shown(settled.value, run, targetIo, `${set?.file} (target ${target.name})`);
    } catch (error) {
      reportFailure(run, error, targetIo);
      failure = failureOf(error, aborted(targetIo, error));
      code = failure.code;
    }
    (runs as TargetRuns).end(target, code, failure?.message);
    const kept = { target, code, value: run.output.document(), stdout: targetIo.out() };
    outcomes.set(target.name, { ...kept, ...(failure && { error: failure.message, errorJson: failure.errorJson }) });
  };
  const request = {
    ...requestOf(base),
    targetParallelism: targetParallelism(flags.targetParallelism),
    allOrNothing: flags.allOrNothing === true,
  };
  let settled: Awaited<ReturnType<typeof applyEachTarget>>;
  try {
    settled = await applyEachTarget(declared, request, cliContext(io, shared.logLevel), {
      ...options,
      begin: (chosen) => {
        runs = new TargetRuns(io, chosen);
        if (asking) askOnce = askingOnce(chosen, shared, io);
      },
      ...(asking && { askOnce: () => askOnce }),
      started,
      ended,
    });
  } finally {
    runs?.finish();
  }
  const all = settled.map(
    ({ target }) => outcomes.get(target.name) as TargetOutcome<Record<string, unknown> | undefined>,
  );
  io.stdout.write(shared.format === 'json' ? applyTargetsJson(all) : applyTargetsHuman(all));
  return mostSevere(all.map((outcome) => outcome.code));
}

/** The one question of an interactive apply over targets: each target's plan shown, one answer for all. */
function askingOnce(chosen: readonly TargetDeclaration[], shared: ApplyRun['shared'], io: Io): AskOnce {
  return new AskOnce(
    chosen.map((target) => target.name),
    {
      render: (plan, target) => renderHuman(plan, { color: shared.color, target }),
      ask: (question) => askYes(io, question),
    },
  );
}
