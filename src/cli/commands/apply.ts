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
import { configRoot, outsideRoot } from '../../config/root.js';
import { readPlanFile } from '../../engine/apply-steps.js';
import { resolveBaseline } from '../../engine/baseline.js';
import { loadDesiredState } from '../../engine/prepare.js';
import { refuseTargetsWithout } from '../../engine/targets.js';
import { SitesyncError } from '../../model/errors.js';
import { parsePlanFile } from '../../plan/index.js';
import { errorJsonOf, renderApplyError } from '../../render/error-document.js';
import { type ApplyFlags, type ApplyRun, marked, markTarget, refusePlanningFlags, startRun } from '../apply-checks.js';
import { applyOne, applyTargets, reportFailure } from '../apply-run.js';
import type { CommandContext } from '../command-context.js';
import { cliContext } from '../events.js';
import { aborted, type Io } from '../io.js';
import { syncWriteOnlyOption } from '../option-values.js';
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
        '--allow-policy <name[:domain]>',
        'acknowledge a broken error policy: NAME:DOMAIN for a rule over a website, NAME for a rule over the plan (repeatable)',
      ).argParser(collect),
    )
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

async function applyConfiguration(run: ApplyRun, io: Io): Promise<number> {
  const root = await loadDesiredState(run.shared, cliContext(io, run.shared.logLevel));
  const mark = await markTarget(run, root, io);
  if (root.targets === undefined) {
    refuseTargetsWithout(run.shared);
    return await marked(mark, await applyOne(run, io, undefined, root), io);
  }
  // Resolved once: every target reads its files at the same commit.
  const baseline = await resolveBaseline(run.shared.files, run.flags, io);
  return await marked(mark, await applyTargets(root.targets, run, io, { baseline }), io);
}

/**
 * The files a plan file records, held to the working directory's root before any is read: the
 * list is only verified with the signature, after the configuration loaded (config/root.ts).
 */
function insideRoot(recorded: readonly string[], planFile: string, cwd: string): string[] {
  const root = configRoot(cwd);
  for (const file of recorded) {
    const outside = outsideRoot(resolve(cwd, file), root);
    if (outside !== undefined) throw new SitesyncError('usage', `${planFile} records ${file}, which ${outside}`);
  }
  return [...recorded];
}

async function applySavedPlan(planFile: string, run: ApplyRun, io: Io): Promise<number> {
  refusePlanningFlags(planFile, run);
  const path = isAbsolute(planFile) ? planFile : resolve(io.cwd, planFile);
  const parsed = parsePlanFile(await readPlanFile(path, planFile, io.signal), planFile);
  // Without -f, the files the plan was made from (the signature, checked later, covers the list).
  const recorded = 'single' in parsed ? parsed.single.files : parsed.set.targets[0]?.files;
  if (run.shared.files.length === 0 && recorded !== undefined)
    run.shared.files = insideRoot(recorded, planFile, io.cwd);
  if ('single' in parsed) run.output.plan(parsed.single.plan, parsed.single.target, false, run.acks);
  const lock = lockPlanFile(path);
  try {
    run.planFile = planFile;
    const root = await loadDesiredState(run.shared, cliContext(io, run.shared.logLevel));
    if ('single' in parsed) {
      if (root.targets !== undefined) {
        throw new SitesyncError(
          'usage',
          `${planFile} was made without targets, but the configuration declares targets: make the plan again (sitesync plan --out ${planFile})`,
        );
      }
      refuseTargetsWithout(run.shared);
      const mark = await markTarget(run, root, io);
      return await marked(mark, await applyOne(run, io, parsed.single, root), io);
    }
    if (root.targets === undefined) {
      throw new SitesyncError(
        'usage',
        `${planFile} holds a plan per target, but the configuration declares no targets (see docs/config.md, Targets)`,
      );
    }
    const set = { file: planFile, plan: parsed.set };
    const mark = await markTarget(run, root, io, set);
    return await marked(mark, await applyTargets(root.targets, run, io, { set }), io);
  } finally {
    lock.release();
  }
}
