/**
 * `sitesync apply [-f FILE]...` plans, shows the plan and asks for `yes` (or
 * takes `--auto-approve`); `sitesync apply plan.json` applies a reviewed plan
 * file without asking, exactly as reviewed, if it is still true (same target,
 * account, configuration and live state). Both print the plan first, enforce
 * its safety rules (each acknowledged by its own flag), then hand it to the
 * apply engine with a journal and progress, print the summary, and return the
 * exit code. With --format json, stdout carries one document: plan and result
 * (or refusal). The steps are in ../apply-steps.ts.
 */
import { isAbsolute, resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { isSitesyncError, SitesyncError } from '../../model/errors.js';
import {
  admissionRefusal,
  fingerprintsOf,
  liveCountOf,
  parseSavedPlan,
  rederive,
  signatureVerifies,
} from '../../plan/index.js';
import { rederivedRefusalText } from '../../render/apply-result.js';
import { errorJsonOf, renderApplyError } from '../../render/error-document.js';
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
} from '../apply-steps.js';
import { loadBaseline, type MarkTarget, markApplied, prepareMarkApplied } from '../baseline.js';
import type { CommandContext } from '../command-context.js';
import { aborted, type Io } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption } from '../option-values.js';
import { lockPlanFile } from '../plan-lock.js';
import { openSession, planSession, type Session, targetedDomains } from '../prepare.js';
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
    .action(async (planFile, raw) => {
      await context.run(async () => runApply(planFile, raw, context.io));
    });
}

async function runApply(planFile: string | undefined, raw: ApplyFlags & { format?: string | undefined }, io: Io) {
  let run: ApplyRun | undefined;
  try {
    run = startRun(readSharedOptions(raw, io), raw, io);
    const mark = markTarget(run, io);
    const code =
      planFile === undefined ? await applyConfiguration(run, io) : await applySavedPlan(planFile, run, io, mark);
    if (mark !== undefined && code === 0) io.stderr.write(`${markApplied(mark)}\n`);
    return code;
  } catch (error) {
    if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
      run?.output.refused({ code: error.code, message: error.message });
    }
    // With --format json, stdout carries one document in every case: the refusal above, or the error.
    const failure = errorJsonOf(error, aborted(io, error));
    if (run !== undefined) run.output.failed(failure);
    else if (raw.format === 'json') io.stdout.write(renderApplyError(failure));
    throw error;
  }
}

/**
 * --mark-applied, checked before anything is read or written. Not with
 * --only/--skip: a partial apply is not "the configuration was applied".
 */
function markTarget(run: ApplyRun, io: Io): MarkTarget | undefined {
  const tag = run.flags.markApplied;
  if (tag === undefined) return undefined;
  if (run.shared.only.length > 0 || run.shared.skip.length > 0) {
    throw new SitesyncError(
      'usage',
      '--mark-applied cannot be combined with --only or --skip: the tag marks a whole apply',
    );
  }
  return prepareMarkApplied(run.shared.files, tag, io);
}

async function applyConfiguration(run: ApplyRun, io: Io): Promise<number> {
  const { shared, flags, output } = run;
  const session = await openSession(shared, io, run.parallelism);
  try {
    const baseline = loadBaseline(shared.files, flags, io);
    const { liveCount, plan } = await planSession(session, shared, io, {
      syncWriteOnly: readSyncWriteOnly(flags.syncWriteOnly),
      unlistedIsDrift: flags.unlistedIsDrift === true,
      baseline,
    });
    output.plan(plan, session.api.url, flags.autoApprove !== true && io.prompt !== undefined, run.acks);
    const unsafe = refuseUnsafe(plan, run, io);
    if (unsafe !== undefined) return unsafe;
    if (plan.changes.length === 0) return output.nothingToDo();
    let skip: ReadonlyMap<string, string> | undefined;
    if (flags.autoApprove !== true) {
      const answer = await confirmed(io, plan, session.api.url);
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

async function applySavedPlan(planFile: string, run: ApplyRun, io: Io, mark?: MarkTarget): Promise<number> {
  refusePlanningFlags(planFile, run);
  const path = isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile);
  const saved = parseSavedPlan(readPlanFile(path, planFile), planFile);
  run.output.plan(saved.plan, saved.target, false, run.acks);
  const lock = lockPlanFile(path);
  let session: Session | undefined;
  try {
    session = await openSession(run.shared, io, run.parallelism);
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
    // A plan classified against a baseline is re-derived against the same commit.
    const recorded = saved.plan.baseline;
    const baseline =
      recorded === undefined ? undefined : loadBaseline(run.shared.files, { baseline: recorded.commit }, io);
    const { differences } = rederive(saved, session.state.websites, session.state.policy, baseline);
    if (differences.length > 0) throw new SitesyncError('stale_plan', rederivedRefusalText(planFile, differences));
    if (mark !== undefined && (saved.policy.only.length > 0 || saved.policy.skip.length > 0)) {
      throw new SitesyncError(
        'usage',
        `--mark-applied cannot apply ${planFile}: it was planned with --only or --skip, and the tag marks a whole apply`,
      );
    }
    const unsafe = refuseUnsafe(saved.plan, run, io);
    if (unsafe !== undefined) return unsafe;
    if (saved.plan.changes.length === 0) return run.output.nothingToDo();
    // A plan made from a targeted listing (--only exact domains) does not know the account's size: read per site.
    const liveCount = targetedDomains(saved.policy) === undefined ? liveCountOf(saved.plan) : Number.POSITIVE_INFINITY;
    const stale = { what: planFile, rerun: `sitesync plan --out ${planFile}` };
    const skip = await freshOrRefuse(saved.plan, saved.fingerprints, session.api, liveCount, stale, io);
    return await execute(saved.plan, session, run, { liveCount, skip }, io);
  } finally {
    await session?.api.close();
    lock.release();
  }
}
