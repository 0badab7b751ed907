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
import { admissionRefusal, fingerprintsOf, liveCountOf, parseSavedPlan, signatureVerifies } from '../../plan/index.js';
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
import type { CommandContext } from '../command-context.js';
import type { Io } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption } from '../option-values.js';
import { lockPlanFile } from '../plan-lock.js';
import { openSession, planSession, type Session } from '../prepare.js';
import { addSharedOptions, collect, readSharedOptions, type SharedOptions } from '../shared-options.js';

export function registerApply(program: Command, context: CommandContext): void {
  const command = program
    .command('apply')
    .description('apply the configuration (plan, confirm, apply), or a saved plan file as reviewed')
    .argument('[plan-file]', 'a plan saved with `sitesync plan --out`: applied without a prompt if still true');
  addSharedOptions(command)
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
      await context.run(async () => runApply(planFile, readSharedOptions(raw, context.io), raw, context.io));
    });
}

async function runApply(planFile: string | undefined, shared: SharedOptions, flags: ApplyFlags, io: Io) {
  const run = startRun(shared, flags, io);
  try {
    return planFile === undefined ? await applyConfiguration(run, io) : await applySavedPlan(planFile, run, io);
  } catch (error) {
    if (isSitesyncError(error) && (error.code === 'stale_plan' || error.code === 'interrupted')) {
      run.output.refused({ code: error.code, message: error.message });
    }
    throw error;
  }
}

async function applyConfiguration(run: ApplyRun, io: Io): Promise<number> {
  const { shared, flags, output } = run;
  const session = await openSession(shared, io, run.parallelism);
  try {
    const { live, plan } = await planSession(session, shared, io, readSyncWriteOnly(flags.syncWriteOnly));
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
      skip = await freshOrRefuse(plan, fingerprintsOf(plan), session.api, live.length, stale, io);
    }
    return await execute(plan, session, run, { liveCount: live.length, skip }, io);
  } finally {
    await session.api.close();
  }
}

async function applySavedPlan(planFile: string, run: ApplyRun, io: Io): Promise<number> {
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
    const unsafe = refuseUnsafe(saved.plan, run, io);
    if (unsafe !== undefined) return unsafe;
    if (saved.plan.changes.length === 0) return run.output.nothingToDo();
    const liveCount = liveCountOf(saved.plan);
    const stale = { what: planFile, rerun: `sitesync plan --out ${planFile}` };
    const skip = await freshOrRefuse(saved.plan, saved.fingerprints, session.api, liveCount, stale, io);
    return await execute(saved.plan, session, run, { liveCount, skip }, io);
  } finally {
    await session?.api.close();
    lock.release();
  }
}
