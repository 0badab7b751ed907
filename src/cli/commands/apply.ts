/**
 * `sitesync apply [-f FILE]...` plans, shows the plan and asks for `yes` (or
 * takes `--auto-approve`); `sitesync apply plan.json` applies a reviewed plan
 * file without asking, exactly as reviewed, if it is still true (same target,
 * account, configuration and live state). Both print the plan first, enforce
 * its safety rules (each acknowledged by its own flag), then hand it to the
 * apply engine with a journal and progress, print the summary, and return the
 * exit code. With --format json, stdout carries one document: plan and result
 * (or refusal, or error). With targets, each target runs this single-target
 * apply (../../engine/apply-targets.ts). The steps are in ../../engine/apply-steps.ts.
 */
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { unacknowledged } from '../../apply/acknowledge.js';
import {
  type ApplyFlags,
  type ApplyRun,
  confirmed,
  execute,
  freshOrRefuse,
  readPlanFile,
  refusePlanningFlags,
  refuseUnsafe,
  startRun,
} from '../../engine/apply-steps.js';
import { applyTargets, chosenTargets } from '../../engine/apply-targets.js';
import { baselineFor, recordedBaseline, resolveBaseline } from '../../engine/baseline.js';
import { type MarkTarget, markApplied, prepareMarkApplied } from '../../engine/mark-applied.js';
import { loadDesiredState, openSession, planSession, type Session, targetedDomains } from '../../engine/prepare.js';
import { refuseTargetsWithout, targetFiles } from '../../engine/targets.js';
import { refuseUnsentWrites } from '../../engine/write-only-since.js';
import type { DesiredState } from '../../model/desired-state.js';
import { isSitesyncError, SitesyncError } from '../../model/errors.js';
import {
  admissionRefusal,
  fingerprintsOf,
  liveCountOf,
  parsePlanFile,
  rederive,
  type SavedPlan,
  signatureVerifies,
} from '../../plan/index.js';
import { rederivedRefusalText } from '../../render/apply-result.js';
import { errorJsonOf, renderApplyError } from '../../render/error-document.js';
import type { CommandContext } from '../command-context.js';
import { aborted, type Io } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption } from '../option-values.js';
import { lockPlanFile } from '../plan-lock.js';
import { addSharedOptions, baselineOptions, collect, readSharedOptions } from '../shared-options.js';

export function registerApply(program: Command, context: CommandContext): void {
  const command = program
    .command('apply')
    .description('apply the configuration (plan, confirm, apply), or a saved plan file as reviewed')
    .argument('[plan-file]', 'a plan saved with `sitesync plan --out`: applied without a prompt if still true');
  for (const option of baselineOptions()) command.addOption(option);
  addSharedOptions(command)
    .addOption(
      new Option(
        '--mark-applied <tag>',
        'after a fully successful, verified apply, move this git tag to the applied commit (HEAD); the configuration must equal HEAD',
      ),
    )
    .addOption(new Option('--auto-approve', 'apply without asking (required off a terminal)'))
    .addOption(
      new Option('--allow-delete <domain-or-glob>', 'acknowledge deleting this domain (repeatable)').argParser(collect),
    )
    .addOption(new Option('--max-deletes <n>', 'acknowledge up to N deletes (raises limits.max_deletes)'))
    .addOption(
      new Option(
        '--max-change-percent <n>',
        'acknowledge changing up to N% of the sites (raises limits.max_change_percent)',
      ),
    )
    .addOption(new Option('--parallelism <n>', 'changes in flight at once').default('4'))
    .addOption(new Option('--journal <file>', 'append one JSON line per operation to FILE'))
    .addOption(syncWriteOnlyOption())
    .addOption(new Option('--target-parallelism <n>', 'targets applied at once (default 4)'))
    .addOption(new Option('--all-or-nothing', 'with targets: apply no target unless every target passes its checks'))
    .action(async (planFile, raw) => {
      await context.run(async () => runApply(planFile, raw, context.io));
    });
}

async function runApply(planFile: string | undefined, raw: ApplyFlags & { format?: string | undefined }, io: Io) {
  let run: ApplyRun | undefined;
  try {
    run = startRun(readSharedOptions(raw, io), raw, io);
    return planFile === undefined ? await applyConfiguration(run, io) : await applySavedPlan(planFile, run, io);
  } catch (error) {
    // With --format json, stdout carries one document in every case: the refusal, or the error.
    if (run !== undefined) reportFailure(run, error, io);
    else if (raw.format === 'json') io.stdout.write(renderApplyError(errorJsonOf(error, aborted(io, error))));
    throw error;
  }
}

/** A refusal or an error as the run's JSON document (written once: later calls do nothing). */
function reportFailure(run: ApplyRun, error: unknown, io: Io): void {
  if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
    run.output.refused({ code: error.code, message: error.message });
  }
  run.output.failed(errorJsonOf(error, aborted(io, error)));
}

async function applyConfiguration(run: ApplyRun, io: Io): Promise<number> {
  const root = await loadDesiredState(run.shared, io);
  const mark = await markTarget(run, root, io);
  if (root.targets === undefined) {
    refuseTargetsWithout(run.shared);
    return marked(mark, await applyOne(run, io, undefined, root), io);
  }
  // Resolved once: every target reads its files at the same commit.
  const baseline = await resolveBaseline(run.shared.files, run.flags, io);
  return marked(mark, await applyTargets(root.targets, run, io, applyOne, { baseline }), io);
}

async function applySavedPlan(planFile: string, run: ApplyRun, io: Io): Promise<number> {
  refusePlanningFlags(planFile, run);
  const path = isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile);
  const parsed = parsePlanFile(await readPlanFile(path, planFile, io.signal), planFile);
  if ('single' in parsed) run.output.plan(parsed.single.plan, parsed.single.target, false, run.acks);
  const lock = lockPlanFile(path);
  try {
    run.planFile = planFile;
    const root = await loadDesiredState(run.shared, io);
    if ('single' in parsed) {
      if (root.targets !== undefined) {
        throw new SitesyncError(
          'usage',
          `${planFile} was made without targets, but the configuration declares targets: make the plan again (sitesync plan --out ${planFile})`,
        );
      }
      refuseTargetsWithout(run.shared);
      const mark = await markTarget(run, root, io);
      return marked(mark, await applyOne(run, io, parsed.single, root), io);
    }
    if (root.targets === undefined) {
      throw new SitesyncError(
        'usage',
        `${planFile} holds a plan per target, but the configuration declares no targets (see docs/config.md, Targets)`,
      );
    }
    const set = { file: planFile, plan: parsed.set };
    const mark = await markTarget(run, root, io, set);
    return marked(mark, await applyTargets(root.targets, run, io, applyOne, { set }), io);
  } finally {
    lock.release();
  }
}

/**
 * --mark-applied, checked before anything is written. Not with --only/--skip,
 * nor with only some of the declared targets: a partial apply is not "the
 * configuration was applied". With targets, their files must equal HEAD too.
 */
async function markTarget(
  run: ApplyRun,
  root: DesiredState,
  io: Io,
  set?: Parameters<typeof chosenTargets>[2],
): Promise<MarkTarget | undefined> {
  const tag = run.flags.markApplied;
  if (tag === undefined) return undefined;
  const { shared } = run;
  if (shared.only.length > 0 || shared.skip.length > 0) {
    throw new SitesyncError(
      'usage',
      '--mark-applied cannot be combined with --only or --skip: the tag marks a whole apply',
    );
  }
  const declared = root.targets ?? [];
  if (declared.length > 0 && chosenTargets(declared, shared, set).length < declared.length) {
    const what = set === undefined ? 'the --target choice' : `${set.file} with the --target choice`;
    throw new SitesyncError(
      'usage',
      `--mark-applied needs every declared target (${declared.map((target) => target.name).join(', ')}), but ${what} leaves some out: the tag marks a whole apply`,
    );
  }
  const files = [...shared.files, ...declared.flatMap((target) => targetFiles([], target, io.cwd).slice(1))];
  run.mark = await prepareMarkApplied(files, tag, io);
  return run.mark;
}

/** Moves the tag after a fully successful apply (every target's, with targets). */
async function marked(mark: MarkTarget | undefined, code: number, io: Io): Promise<number> {
  if (mark !== undefined && code === 0) io.stderr.write(`${await markApplied(mark)}\n`);
  return code;
}

/** One target's apply (or the only one's): a refusal or an error is also its JSON document. */
async function applyOne(run: ApplyRun, io: Io, saved?: SavedPlan, loaded?: DesiredState): Promise<number> {
  try {
    if (saved === undefined) return await applyFromPlan(run, io, loaded);
    const { target } = run.shared;
    // A single saved plan was shown before the configuration was loaded (so an error document holds it).
    if (target !== undefined) run.output.plan(saved.plan, saved.target, false, run.acks);
    const label = `${run.planFile ?? 'the plan file'}${target ? ` (target ${target.name})` : ''}`;
    return await applySaved(saved, label, run, io, loaded);
  } catch (error) {
    reportFailure(run, error, io);
    throw error;
  }
}

/** The baseline of this run: its own (single target), or its target's at the commit resolved for all. */
async function runBaseline(run: ApplyRun, io: Io) {
  const at = run.shared.target === undefined ? await resolveBaseline(run.shared.files, run.flags, io) : run.baselineAt;
  return baselineFor(run.shared, at, io);
}

async function applyFromPlan(run: ApplyRun, io: Io, loaded?: DesiredState): Promise<number> {
  const { shared, flags, output } = run;
  const session = await openSession(shared, io, run.parallelism, 'resolve', loaded);
  try {
    const { liveCount, plan, live, policy } = await planSession(session, shared, io, {
      syncWriteOnly: readSyncWriteOnly(flags.syncWriteOnly),
      unlistedIsDrift: flags.unlistedIsDrift === true,
      baseline: await runBaseline(run, io),
    });
    output.plan(plan, session.api.url, flags.autoApprove !== true && io.prompt !== undefined, run.acks);
    await refuseUnsentWrites(run.mark, shared, { plan, desired: session.state.websites, live, policy }, io);
    const unsafe = await refuseUnsafe(plan, run, io);
    if (unsafe !== undefined) return unsafe;
    if (plan.changes.length === 0) return output.nothingToDo();
    let skip: ReadonlyMap<string, string> | undefined;
    if (flags.autoApprove !== true) {
      const answer = await (run.confirm ?? ((asked, url) => confirmed(io, asked, url)))(plan, session.api.url);
      if (answer !== 'yes') return output.cancelled(answer, io);
      // A person may take minutes to answer: check that the plan still holds, as for a saved plan.
      const stale = { what: 'the plan', rerun: 'sitesync apply' };
      skip = await freshOrRefuse(plan, fingerprintsOf(plan), session.api, liveCount, stale, io);
    }
    return await execute(plan, session, run, { liveCount, skip }, io);
  } finally {
    await session.api.close();
  }
}

async function applySaved(
  saved: SavedPlan,
  planFile: string,
  run: ApplyRun,
  io: Io,
  loaded?: DesiredState,
): Promise<number> {
  let session: Session | undefined;
  try {
    session = await openSession(run.shared, io, run.parallelism, 'resolve', loaded);
    const here = { target: session.api.url, keyId: session.connection.keyId, configDigest: session.state.digest };
    const refusal = admissionRefusal(saved, here, planFile);
    if (refusal !== undefined) throw new SitesyncError('stale_plan', refusal);
    if (!signatureVerifies(saved, session.connection.sign)) {
      throw new SitesyncError(
        'stale_plan',
        `${planFile} was modified after sitesync plan wrote it (its signature does not verify with this API key): make the plan again and review it`,
      );
    }
    // Signed by a key holder is not enough: the file must be what the planner makes of this configuration.
    // A plan classified against a baseline is re-derived against the same commit (a target's: its files there).
    const recorded = saved.plan.baseline;
    const at =
      recorded === undefined
        ? undefined
        : await recordedBaseline(run.shared.rootFiles ?? run.shared.files, recorded, planFile, io);
    if (at?.ref.fetchedFrom !== undefined) {
      const { ref, commit, fetchedFrom } = at.ref;
      io.stderr.write(
        `note: the baseline ${ref} (${commit.slice(0, 12)}) of ${planFile} was fetched from ${fetchedFrom}: this clone lacked it\n`,
      );
    }
    const baseline = await baselineFor(run.shared, at, io);
    const desired = session.state.websites;
    const { differences, policy } = rederive(saved, desired, session.state.policy, baseline);
    if (differences.length > 0) throw new SitesyncError('stale_plan', rederivedRefusalText(planFile, differences));
    await refuseUnsentWrites(run.mark, run.shared, { plan: saved.plan, desired, live: saved.live, policy }, io);
    if (run.flags.markApplied !== undefined && (saved.policy.only.length > 0 || saved.policy.skip.length > 0)) {
      throw new SitesyncError(
        'usage',
        `--mark-applied cannot apply ${planFile}: it was planned with --only or --skip, and the tag marks a whole apply`,
      );
    }
    // A plan made from a targeted listing (--only exact domains) does not know the account's size: read per site.
    const liveCount = targetedDomains(saved.policy) === undefined ? liveCountOf(saved.plan) : Number.POSITIVE_INFINITY;
    const stale = { what: planFile, rerun: `sitesync plan --out ${run.planFile ?? planFile}` };
    const { api } = session;
    const fresh = () => freshOrRefuse(saved.plan, saved.fingerprints, api, liveCount, stale, io);
    // Re-applied after every change was made: nothing is left to acknowledge, so nothing to refuse.
    const unacknowledgedRules = unacknowledged(saved.plan.safety, run.acks).length > 0;
    let skip = unacknowledgedRules && saved.plan.changes.length > 0 ? await fresh() : undefined;
    if (skip === undefined || skip.size < saved.plan.changes.length) {
      const unsafe = await refuseUnsafe(saved.plan, run, io);
      if (unsafe !== undefined) return unsafe;
    }
    if (saved.plan.changes.length === 0) return run.output.nothingToDo();
    skip ??= await fresh();
    return await execute(saved.plan, session, run, { liveCount, skip }, io);
  } finally {
    await session?.api.close();
  }
}
