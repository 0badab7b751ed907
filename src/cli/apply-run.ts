/**
 * One `sitesync apply` as the command line runs it: its flags read once into
 * the engine's request (`startRun`), then, per target, the engine's
 * `applyTarget` with the terminal's ports (prompt, journal file, progress
 * line) and its outcome shown and turned into an exit code (`applyOne`).
 */
import { resolve } from 'node:path';
import type { Acknowledgements } from '../apply/acknowledge.js';
import {
  type Answer,
  type ApplyOutcome,
  type ApplyPorts,
  type ApplyRequest,
  applyTarget,
  type SavedSource,
} from '../engine/apply-target.js';
import type { BaselineAt } from '../engine/baseline.js';
import type { DesiredState } from '../model/desired-state.js';
import { isSitesyncError, SitesyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { SavedPlan } from '../plan/index.js';
import { confirmQuestion, staleRefusalText } from '../render/apply-result.js';
import { errorJsonOf } from '../render/error-document.js';
import { safetyRefusalText } from '../render/safety-refusal.js';
import { ApplyOutput } from './apply-output.js';
import { cliContext } from './events.js';
import { exitCodeFor } from './exit-code.js';
import { aborted, type Io } from './io.js';
import { openJournal } from './journal-file.js';
import { globsOption, readSyncWriteOnly, wholeNumberOption } from './option-values.js';
import type { SharedOptions } from './shared-options.js';

/** commander's values for apply's own options. */
export interface ApplyFlags {
  autoApprove?: boolean;
  allowDelete?: string[];
  maxDeletes?: string;
  maxChangePercent?: string;
  parallelism: string;
  journal?: string;
  syncWriteOnly?: string[] | boolean;
  targetParallelism?: string;
  allOrNothing?: boolean;
  /** A git revision, or false for --no-baseline. */
  baseline?: string | boolean;
  unlistedIsDrift?: boolean;
  /** --mark-applied TAG: move TAG to HEAD after a fully successful, verified apply. */
  markApplied?: string;
}

/** One apply command's settings, read once. */
export interface ApplyRun {
  started: number;
  parallelism: number;
  flags: ApplyFlags;
  shared: SharedOptions;
  acks: Acknowledgements;
  output: ApplyOutput;
  /** A target's run: the baseline commit, resolved once for every target (undefined: no baseline). */
  baselineAt?: BaselineAt;
  /** The saved plan file being applied, as given. */
  planFile?: string;
  /** Over several targets: the engine's cross-target ports (barrier, --allow-delete across targets). */
  ports?: Pick<ApplyPorts, 'beforeWrites' | 'allowDeleteAcrossTargets'>;
}

/** Validates apply's options (a bad one is a usage error before anything is read). */
export function startRun(shared: SharedOptions, flags: ApplyFlags, io: Io): ApplyRun {
  const started = Date.now();
  const acks = readAcknowledgements(flags);
  const parallelism = wholeNumberOption('--parallelism', flags.parallelism, { min: 1 });
  return { started, parallelism, flags, shared, acks, output: new ApplyOutput(shared, io) };
}

function readAcknowledgements(flags: ApplyFlags): Acknowledgements {
  const acks: Acknowledgements = { allowDelete: allowDeleteOption(flags.allowDelete) };
  if (flags.maxDeletes !== undefined)
    acks.maxDeletes = wholeNumberOption('--max-deletes', flags.maxDeletes, { min: 0 });
  if (flags.maxChangePercent !== undefined) {
    acks.maxChangePercent = wholeNumberOption('--max-change-percent', flags.maxChangePercent, { min: 0, max: 100 });
  }
  return acks;
}

/** `*` alone (or `**`) would acknowledge every delete at once: a global force, which sitesync deliberately lacks. */
function allowDeleteOption(values: string[] | undefined): string[] {
  const globs = globsOption('--allow-delete', values, 'a domain or glob');
  const everything = globs.find((glob) => /^\*+$/.test(glob));
  if (everything !== undefined) {
    throw new SitesyncError(
      'usage',
      `--allow-delete ${everything} would acknowledge every delete: name each domain (or a narrower glob such as *.staging.example)`,
    );
  }
  return globs;
}

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
  };
}

/** A refusal or an error as the run's JSON document (written once: later calls do nothing). */
export function reportFailure(run: ApplyRun, error: unknown, io: Io): void {
  if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
    run.output.refused({ code: error.code, message: error.message });
  }
  run.output.failed(errorJsonOf(error, aborted(io, error)));
}

/** One target's apply (or the only one's): shown as it goes, a refusal or an error also its JSON document. */
export async function applyOne(run: ApplyRun, io: Io, saved?: SavedPlan, loaded?: DesiredState): Promise<number> {
  const context = cliContext(io, run.shared.logLevel);
  const asking = run.flags.autoApprove !== true;
  const stop = run.output.follow(context, asking && io.prompt !== undefined, run.acks);
  try {
    let source: SavedSource | undefined;
    if (saved !== undefined) {
      const { target } = run.shared;
      // A single saved plan was shown before the configuration was loaded (so an error document holds it).
      if (target !== undefined) run.output.plan(saved.plan, saved.target, false, run.acks);
      source = { saved, label: `${run.planFile ?? 'the plan file'}${target ? ` (target ${target.name})` : ''}` };
    }
    const ports: ApplyPorts = {
      ...run.ports,
      ...(asking && saved === undefined && { confirm: (plan: Plan, target: string) => confirmed(io, plan, target) }),
      ...(run.flags.journal !== undefined && {
        openJournal: () => openJournal(resolve(io.cwd, run.flags.journal as string)),
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
      return output.nothingToDo();
    case 'applied':
      output.result(outcome.result);
      return exitCodeFor({ kind: 'applied', result: outcome.result });
    case 'refused': {
      const { refusal } = outcome;
      if (refusal.reason === 'cancelled') return output.cancelled(refusal.answer, io);
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
async function confirmed(io: Io, plan: Plan, target: string): Promise<Answer> {
  if (io.prompt === undefined) {
    throw new SitesyncError(
      'usage',
      'not a terminal, so there is no one to confirm: pass --auto-approve, or apply a reviewed plan file (sitesync plan --out plan.json; sitesync apply plan.json)',
    );
  }
  let answer: string | undefined;
  try {
    answer = await io.prompt(confirmQuestion(target, plan.summary));
  } catch (error) {
    if (isSitesyncError(error) && error.code === 'interrupted') return 'interrupted';
    throw error;
  }
  if (answer === undefined) return 'eof';
  return answer.trim() === 'yes' ? 'yes' : 'no';
}
