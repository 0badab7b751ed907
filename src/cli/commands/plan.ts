/**
 * `sitesync plan`: load the configuration, list the live websites, plan, and
 * print the plan as human text, JSON or Markdown; optionally save it for a
 * later `apply` (--out). Never changes anything. Exit codes (docs/exit-codes.md):
 * 0 no changes (or changes without --detailed-exitcode), 2 changes with
 * --detailed-exitcode, 4 drift with --detailed-exitcode (a baseline), 3 the
 * plan violates a safety limit, 1 any error. With targets: one plan per
 * target, one report, the most severe code.
 */
import { resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { loadWhileListing, whileListing } from '../../engine/early-listing.js';
import { type PlanRequest, planTarget } from '../../engine/plan-target.js';
import { loadDesiredState } from '../../engine/prepare.js';
import { refuseTargetsWithout } from '../../engine/targets.js';
import { serializeSavedPlan } from '../../plan/index.js';
import { errorJsonOf, renderPlanError } from '../../render/error-document.js';
import type { CommandContext } from '../command-context.js';
import { cliContext } from '../events.js';
import { EXIT_CODE_STYLES, exitCodeFor, exitCodeStyle, terraformPlanCode } from '../exit-code.js';
import { aborted, type Io, writeAtomically } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption, targetParallelism } from '../option-values.js';
import { planTargets } from '../plan-targets.js';
import { applyCommand, renderPlan } from '../plan-view.js';
import {
  addSharedOptions,
  baselineOptions,
  type RawBaselineOptions,
  readSharedOptions,
  type SharedOptions,
} from '../shared-options.js';

const FORMATS = ['human', 'json', 'markdown'] as const;

export interface PlanFlags extends RawBaselineOptions {
  out?: string | undefined;
  detailedExitcode?: boolean | undefined;
  exitCodes?: string | undefined;
  explain?: boolean | undefined;
  syncWriteOnly?: string[] | boolean | undefined;
  targetParallelism?: string | undefined;
  /** false: --no-attribution. */
  attribution?: boolean | undefined;
  liveSince?: string | undefined;
}

export function registerPlan(program: Command, context: CommandContext): void {
  const command = program.command('plan').description('show what apply would change, field by field (changes nothing)');
  for (const option of baselineOptions()) command.addOption(option);
  addSharedOptions(command, FORMATS)
    .addOption(new Option('--out <file>', 'save the plan for `sitesync apply <file>` (no secrets in it)'))
    .addOption(
      new Option(
        '--detailed-exitcode',
        'exit 2 when there are changes (0 when none), 4 when some are drift or a conflict (with a baseline)',
      ),
    )
    .addOption(
      new Option(
        '--exit-codes <style>',
        'terraform: only 0, 1 and 2, as terraform plan (or SITESYNC_EXIT_CODES; docs/exit-codes.md)',
      ).choices(EXIT_CODE_STYLES),
    )
    .addOption(new Option('--explain', 'show raw and canonical values of every compared field'))
    .addOption(
      new Option('--no-attribution', 'do not name the commit of each change (git blame of the configuration files)'),
    )
    .addOption(
      new Option('--live-since <journal>', 'say since when each drifted site differs, from a watch --journal file'),
    )
    .addOption(syncWriteOnlyOption())
    .addOption(new Option('--target-parallelism <n>', 'targets planned at once (default 4)'))
    .action(async (raw) => {
      await context.run(async () => {
        try {
          const style = exitCodeStyle(raw.exitCodes ?? context.io.env.SITESYNC_EXIT_CODES);
          const code = await runPlan(readSharedOptions(raw, context.io, FORMATS), raw, context.io);
          return style === 'terraform' ? terraformPlanCode(code, raw.detailedExitcode === true) : code;
        } catch (error) {
          // stdout is written only on success: with --format json a failure is a document too.
          if (raw.format === 'json')
            context.io.stdout.write(renderPlanError(errorJsonOf(error, aborted(context.io, error))));
          throw error;
        }
      });
    });
}

export async function runPlan(shared: SharedOptions, flags: PlanFlags, io: Io): Promise<number> {
  const bound = targetParallelism(flags.targetParallelism);
  const context = cliContext(io, shared.logLevel);
  // Passwords are resolved where they are needed: requireResentPasswords, after planning.
  const request = planRequest(shared, flags);
  const { state: root, early } = await loadWhileListing(request, context, (onRead) =>
    loadDesiredState(shared, context, 'check', onRead),
  );
  if (root.targets !== undefined) {
    await early?.cancel();
    return planTargets(root.targets, request, shared, flags, bound, io);
  }
  await whileListing(early, async () => refuseTargetsWithout(shared));
  const planned = await planTarget(request, context, root, early);
  if (flags.out !== undefined) {
    writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlan(planned.saved), flags.out);
    io.stderr.write(`plan saved to ${flags.out}: apply it with \`${applyCommand(shared, flags.out)}\`\n`);
  }
  io.stdout.write(renderPlan(planned.plan, shared, planned.target, planned.explanation, planned.attribution));
  return exitCodeFor({ kind: 'planned', plan: planned.plan, detailedExitcode: flags.detailedExitcode === true });
}

/** The engine's request: the shared options and plan's own. */
function planRequest(shared: SharedOptions, flags: PlanFlags): PlanRequest {
  return {
    ...shared,
    syncWriteOnly: readSyncWriteOnly(flags.syncWriteOnly),
    unlistedIsDrift: flags.unlistedIsDrift === true,
    explain: flags.explain === true,
    attribution: flags.attribution !== false,
    liveSince: flags.liveSince,
    baseline: flags.baseline,
  };
}
