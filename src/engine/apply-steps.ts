/**
 * The steps of `sitesync apply` after planning, shared by both ways in (a
 * configuration confirmed at a prompt, a saved plan): acknowledgements,
 * refusals, the confirmation prompt, the freshness check, and the run itself
 * with its journal file and progress lines. Files, terminal and clock live
 * here, at the CLI edge; `apply/` orchestrates over the WebsitesApi port.
 */

import { resolve } from 'node:path';
import type { WebsitesApi } from '../api/index.js';
import { type Acknowledgements, refusalOf, unacknowledged } from '../apply/acknowledge.js';
import { applyPlan } from '../apply/apply-plan.js';
import type { Journal } from '../apply/journal.js';
import { listingCost } from '../apply/read-back.js';
import { checkFreshness } from '../apply/staleness.js';
import { type Answer, ApplyOutput } from '../cli/apply-output.js';
import { exitCodeFor } from '../cli/exit-code.js';
import type { Io } from '../cli/io.js';
import { openJournal } from '../cli/journal-file.js';
import { globsOption, wholeNumberOption } from '../cli/option-values.js';
import { progressReporter } from '../cli/progress.js';
import type { SharedOptions } from '../cli/shared-options.js';
import { readPathBounded } from '../config/read-bounded.js';
import { type ApplyResult, succeeded } from '../model/apply-result.js';
import { isSitesyncError, SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';
import type { Plan } from '../model/plan.js';
import { listFirst } from '../model/text.js';
import type { DesiredWebsite } from '../model/website.js';
import type { SiteFingerprint } from '../plan/index.js';
import { confirmQuestion, divergenceText, staleRefusalText } from '../render/apply-result.js';
import { safetyRefusalText } from '../render/safety-refusal.js';
import type { BaselineAt } from './baseline.js';
import type { MarkTarget } from './mark-applied.js';
import type { Session } from './prepare.js';

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
  /** Waited for just before the first write (--all-or-nothing over targets); rejects to write nothing. */
  beforeWrites?: () => Promise<void>;
  /** --mark-applied, checked before anything was written: the tag to move and the commit it moves from. */
  mark?: MarkTarget;
  /** Over targets, asked interactively: one question for every target (./ask-once.ts) instead of one each. */
  confirm?: (plan: Plan, target: string) => Promise<Answer>;
  /** The saved plan file being applied, as given. */
  planFile?: string;
  /**
   * Over several targets (engine/patterns-across-targets.ts): called with the
   * --allow-delete globs that match no delete of this target's plan; the run
   * decides whether they match another target's. Absent: they are refused here.
   */
  allowDeleteAcrossTargets?: (unmatched: readonly string[]) => Promise<void>;
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

/** An --allow-delete that names no planned delete is a typo or a stale command line: say so rather than ignore it. */
async function refuseUnmatchedAllowDelete(plan: Plan, run: ApplyRun): Promise<void> {
  const deleted = plan.changes.filter((change) => change.action === 'delete').map((change) => change.domain);
  const unmatched = run.acks.allowDelete.filter((glob) => !deleted.some((domain) => matchesGlob(domain, glob)));
  if (run.allowDeleteAcrossTargets !== undefined) return run.allowDeleteAcrossTargets(unmatched);
  if (unmatched.length === 0) return;
  const what = deleted.length === 0 ? 'the plan deletes nothing' : `the plan deletes ${listFirst(deleted, 5)}`;
  throw new SitesyncError('usage', `--allow-delete ${unmatched.join(', ')} matches no planned delete (${what})`);
}

/**
 * The one freshness check (apply/staleness.ts) made into the command's answer:
 * the sites to skip (already applied), or a `stale_plan` refusal naming each
 * site that moved and what to run instead.
 */
export async function freshOrRefuse(
  plan: Plan,
  fingerprints: readonly SiteFingerprint[],
  api: WebsitesApi,
  liveCount: number,
  stale: { what: string; rerun: string },
  io: Io,
): Promise<ReadonlyMap<string, string>> {
  const fresh = await checkFreshness(plan.changes, fingerprints, api, { liveCount, signal: io.signal });
  if (fresh.moved.length > 0)
    throw new SitesyncError('stale_plan', staleRefusalText(stale.what, fresh.moved, stale.rerun));
  return fresh.alreadyApplied;
}

/** Options that change what is planned cannot change a reviewed plan: it is applied exactly as saved. */
export function refusePlanningFlags(planFile: string, { shared, flags }: ApplyRun): void {
  const given = [
    ...shared.only.map((glob) => `--only ${glob}`),
    ...shared.skip.map((glob) => `--skip ${glob}`),
    ...syncWriteOnlyWords(flags.syncWriteOnly),
    ...(typeof flags.baseline === 'string' ? [`--baseline ${flags.baseline}`] : []),
    ...(flags.unlistedIsDrift === true ? ['--unlisted-is-drift'] : []),
  ];
  const first = given[0];
  if (first === undefined) return;
  const flag = first.split(' ')[0];
  throw new SitesyncError(
    'usage',
    `${flag} cannot be used with a saved plan: ${planFile} is applied exactly as reviewed; make a new plan with it (sitesync plan ${given.join(' ')} --out ${planFile}) and apply that`,
  );
}

/** --sync-write-only as given, for the command line a refusal suggests. */
function syncWriteOnlyWords(values: string[] | boolean | undefined): string[] {
  if (values === undefined || values === false) return [];
  const given = values === true ? [] : values.filter((value) => value !== '*');
  return given.length === 0 ? ['--sync-write-only'] : given.map((value) => `--sync-write-only ${value}`);
}

/** A saved plan larger than this is not one sitesync wrote (a plan of 100,000 sites is about 60 MB). */
export const MAX_PLAN_FILE_BYTES = 256 * 1024 * 1024;

/**
 * The saved plan, read like every other input (issue 16 item 14): bounded whatever the file's
 * kind (/dev/zero, a pipe), and giving way to Ctrl-C/SIGTERM even on a FIFO with no writer.
 */
export async function readPlanFile(path: string, shown: string, signal?: AbortSignal): Promise<string> {
  const read = await readPathBounded(path, MAX_PLAN_FILE_BYTES, signal);
  switch (read.kind) {
    case 'ok':
      return read.bytes.toString('utf8');
    case 'interrupted':
      throw new SitesyncError('interrupted', `interrupted while reading ${shown}`);
    case 'too-large':
      throw new SitesyncError(
        'usage',
        `${shown}: the plan file is larger than the limit of ${MAX_PLAN_FILE_BYTES} bytes`,
      );
    default:
      throw new SitesyncError(
        'usage',
        `${shown}: ${read.code === 'ENOENT' ? 'no such file' : `cannot be read (${read.code})`}`,
      );
  }
}

export interface Execution {
  liveCount: number;
  skip?: ReadonlyMap<string, string> | undefined;
}

export async function execute(
  plan: Plan,
  session: Session,
  run: ApplyRun,
  execution: Execution,
  io: Io,
): Promise<number> {
  await run.beforeWrites?.();
  if (io.signal?.aborted) {
    const message = 'interrupted before applying anything';
    io.stderr.write(`${message}\n`);
    run.output.refused({ code: 'interrupted', message });
    return exitCodeFor({ kind: 'refused', code: 'interrupted' });
  }
  const { journal: journalFile } = run.flags;
  const journal: Journal | undefined = journalFile
    ? openJournal(resolve(io.cwd, journalFile), run.shared.target?.name)
    : undefined;
  const liveCount = execution.liveCount + plan.changes.filter((c) => c.action === 'create').length;
  const progress = progressReporter(io.stderr, plan.changes.length, {
    pacing: session.api.pacing,
    requestsAfter: Math.min(listingCost(liveCount), plan.changes.length),
  });
  // While the live line is drawn, the client's notices go above it, each on its own line.
  const notices = session.notices.write;
  session.notices.write = (line) => progress.notice(line);
  // A wait for the rate limit may last a minute: the live line counts it down instead of freezing.
  const ticker = io.stderr.isTTY ? setInterval(() => progress.tick(), 1_000) : undefined;
  ticker?.unref();
  const desired = new Map<string, DesiredWebsite>(session.state.websites.map((site) => [site.domain, site]));
  try {
    journal?.record({ event: 'begin', url: session.api.url, total: plan.changes.length });
    const applied = await applyPlan(plan, desired, session.api, {
      parallelism: run.parallelism,
      ...(io.signal && { signal: io.signal }),
      ...(journal && { journal }),
      ...(execution.skip && { skip: execution.skip }),
      liveCount,
      onProgress: (event) => progress.onProgress(event),
    });
    progress.end();
    // The whole command: the listing or staleness check counts as much as the writes.
    const result: ApplyResult = {
      ...applied,
      requests: session.api.stats.requests,
      elapsedMs: Date.now() - run.started,
    };
    const ok = succeeded(result);
    journal?.record({
      event: 'end',
      counts: result.counts,
      interrupted: result.interrupted,
      divergences: result.verification.divergences.map((d) => ({ ...d, detail: divergenceText(d) })),
    });
    run.output.result(result, ok);
    return exitCodeFor({ kind: 'applied', result });
  } finally {
    clearInterval(ticker);
    session.notices.write = notices;
    progress.end();
    journal?.close();
  }
}

/** Exit 3 with the exact acknowledgement to give, or undefined when the plan is safe (or acknowledged). */
export async function refuseUnsafe(plan: Plan, run: ApplyRun, io: Io): Promise<number | undefined> {
  await refuseUnmatchedAllowDelete(plan, run);
  const open = unacknowledged(plan.safety, run.acks);
  if (open.length === 0) return undefined;
  const message = safetyRefusalText(refusalOf(open, run.acks));
  io.stderr.write(`${message}\n`);
  run.output.refused({ code: 'unsafe_plan', message });
  return exitCodeFor({ kind: 'refused', code: 'unsafe_plan' });
}

/** `yes`, another answer, `eof` (Ctrl-D) or `interrupted` (Ctrl-C, or SIGTERM while asking). */
export function confirmed(io: Io, plan: Plan, target: string): Promise<Answer> {
  return askYes(io, confirmQuestion(target, plan.summary));
}

/** Refused before anything is planned when no one can answer (not a terminal). */
export function refuseWithoutPrompt(io: Io): void {
  if (io.prompt !== undefined) return;
  throw new SitesyncError(
    'usage',
    'not a terminal, so there is no one to confirm: pass --auto-approve, or apply a reviewed plan file (sitesync plan --out plan.json; sitesync apply plan.json)',
  );
}

/** The question asked; the answer as `yes`, another answer, `eof` or `interrupted`. */
export async function askYes(io: Io, question: string): Promise<Answer> {
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
