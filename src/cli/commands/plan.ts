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
import { allFlags } from '../../apply/acknowledge.js';
import { type BaselineAt, baselineFor, loadBaseline, resolveBaseline } from '../../engine/baseline.js';
import { PatternsAcrossTargets } from '../../engine/patterns-across-targets.js';
import { loadDesiredState, openSession, planSession, requireResentPasswords } from '../../engine/prepare.js';
import {
  fanOut,
  refuseConnectionFlags,
  refuseTargetsWithout,
  selectTargets,
  spanDomains,
  targetOptions,
  targetParallelism,
} from '../../engine/targets.js';
import type { DesiredState, TargetDeclaration } from '../../model/desired-state.js';
import type { Plan } from '../../model/plan.js';
import {
  createSavedPlan,
  createSavedPlanSet,
  explain,
  type SavedPlan,
  type SiteExplanation,
  serializeSavedPlan,
  serializeSavedPlanSet,
  signSavedPlan,
} from '../../plan/index.js';
import { errorJsonOf, renderPlanError } from '../../render/error-document.js';
import { renderHuman, renderJson, renderMarkdown } from '../../render/index.js';
import {
  renderTargetsHuman,
  renderTargetsJson,
  renderTargetsMarkdown,
  type TargetReport,
} from '../../render/targets.js';
import type { CommandContext } from '../command-context.js';
import { EXIT_CODE_STYLES, exitCodeFor, exitCodeStyle, mostSevere, terraformPlanCode } from '../exit-code.js';
import { aborted, type Io, writeAtomically } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption } from '../option-values.js';
import {
  addSharedOptions,
  baselineOptions,
  type RawBaselineOptions,
  readSharedOptions,
  type SharedOptions,
} from '../shared-options.js';

const FORMATS = ['human', 'json', 'markdown'] as const;
/** A plan is acknowledged by nothing yet: its Markdown lists every flag the apply on merge needs. */
const NO_ACKNOWLEDGEMENTS = { allowDelete: [] };

export interface PlanFlags extends RawBaselineOptions {
  out?: string | undefined;
  detailedExitcode?: boolean | undefined;
  exitCodes?: string | undefined;
  explain?: boolean | undefined;
  syncWriteOnly?: string[] | boolean | undefined;
  targetParallelism?: string | undefined;
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
  // Passwords are resolved where they are needed: requireResentPasswords, after planning.
  const root = await loadDesiredState(shared, io, 'check');
  if (root.targets !== undefined) return planTargets(root.targets, shared, flags, bound, io);
  refuseTargetsWithout(shared);
  const planned = await planOnce(shared, flags, io, await loadBaseline(shared.files, flags, io), root);
  if (flags.out !== undefined) {
    writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlan(planned.saved), flags.out);
    io.stderr.write(`plan saved to ${flags.out}: apply it with \`${applyCommand(shared, flags.out)}\`\n`);
  }
  io.stdout.write(render(planned.plan, shared, planned.target, planned.explanation));
  return planned.code;
}

interface PlannedTarget {
  plan: Plan;
  /** The service's URL. */
  target: string;
  explanation?: SiteExplanation[];
  /** Signed with the connection's key: what `--out` writes. */
  saved: SavedPlan;
  code: number;
}

/** One target's plan (the single-target pipeline): load, connect, list, plan, classify against `baseline`. */
async function planOnce(
  shared: SharedOptions,
  flags: PlanFlags,
  io: Io,
  baseline: Awaited<ReturnType<typeof loadBaseline>>,
  loaded?: DesiredState,
): Promise<PlannedTarget> {
  const syncWriteOnly = readSyncWriteOnly(flags.syncWriteOnly);
  const session = await openSession(shared, io, undefined, 'check', loaded);
  const { api, state } = session;
  try {
    const {
      live,
      policy,
      plan: result,
    } = await planSession(session, shared, io, {
      syncWriteOnly,
      unlistedIsDrift: flags.unlistedIsDrift === true,
      baseline,
    });
    requireResentPasswords(result, policy, state.websites, io);
    const saved = signSavedPlan(
      createSavedPlan({
        target: api.url,
        configDigest: state.digest,
        keyId: session.connection.keyId,
        policy,
        plan: result,
        live,
      }),
      session.connection.sign,
    );
    const planned: PlannedTarget = {
      plan: result,
      target: api.url,
      saved,
      code: exitCodeFor({ kind: 'planned', plan: result, detailedExitcode: flags.detailedExitcode === true }),
    };
    if (flags.explain) planned.explanation = explain(state.websites, live, policy);
    return planned;
  } finally {
    await api.close();
  }
}

/** Every chosen target planned at once (at most `bound` at a time), then one report and the most severe exit code. */
async function planTargets(
  declared: TargetDeclaration[],
  shared: SharedOptions,
  flags: PlanFlags,
  bound: number,
  io: Io,
): Promise<number> {
  refuseConnectionFlags(shared);
  const chosen = selectTargets(declared, shared.targets);
  // Resolved once: every target reads its files at the same commit.
  const at: BaselineAt | undefined = await resolveBaseline(shared.files, flags, io);
  const syncWriteOnly = readSyncWriteOnly(flags.syncWriteOnly);
  const span = await spanDomains(shared, chosen, syncWriteOnly === false ? [] : syncWriteOnly.sites, io);
  const only = PatternsAcrossTargets.only(shared.only, chosen, span);
  const outcomes = await fanOut<PlannedTarget>(chosen, bound, io, async (target, targetIo) => {
    const targetShared = {
      ...targetOptions(shared, target, io.cwd),
      ...(span && { spanDomains: span }),
      // Planning writes nothing: no target waits; the run refuses a typo once all have listed.
      ...(only && { onlyAcrossTargets: only.hookFor(target.name, false) }),
    };
    try {
      const planned = await planOnce(targetShared, flags, targetIo, await baselineFor(targetShared, at, targetIo));
      return { code: planned.code, value: planned };
    } finally {
      only?.end(target.name);
    }
  });
  const refusal = only?.refusal();
  if (refusal !== undefined) throw refusal;
  const reports: TargetReport[] = outcomes.map(({ target, code, value, errorJson }) => ({
    name: target.name,
    target: value?.target ?? target.url,
    code,
    ...(value && { plan: value.plan, acknowledge: allFlags(value.plan.safety, NO_ACKNOWLEDGEMENTS) }),
    ...(value?.explanation && { explain: value.explanation }),
    ...(errorJson !== undefined && { error: errorJson }),
  }));
  if (flags.out !== undefined) {
    const parts = outcomes.flatMap(({ target, value }) => (value ? [{ name: target.name, saved: value.saved }] : []));
    if (parts.length > 0) {
      writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlanSet(createSavedPlanSet(parts)), flags.out);
      const names = parts.map((part) => part.name).join(', ');
      io.stderr.write(
        `plan saved to ${flags.out} (targets ${names}): apply it with \`${applyCommand(shared, flags.out)}\`\n`,
      );
    }
  }
  io.stdout.write(renderTargets(reports, shared));
  return mostSevere(outcomes.map((outcome) => outcome.code));
}

function renderTargets(reports: readonly TargetReport[], shared: SharedOptions): string {
  switch (shared.format) {
    case 'json':
      return renderTargetsJson(reports);
    case 'markdown':
      return renderTargetsMarkdown(reports);
    case 'human':
      return renderTargetsHuman(reports, { color: shared.color });
  }
}

function render(result: Plan, shared: SharedOptions, target: string, explanation?: SiteExplanation[]): string {
  const extra = explanation === undefined ? {} : { explain: explanation };
  switch (shared.format) {
    case 'json':
      return renderJson(result, { target, ...extra });
    case 'markdown':
      return renderMarkdown(result, { target, acknowledge: allFlags(result.safety, NO_ACKNOWLEDGEMENTS) });
    case 'human':
      return renderHuman(result, { color: shared.color, target, ...extra });
  }
}

/**
 * The exact command that applies a saved plan: apply loads the same
 * configuration (its digest is checked) against the same target.
 */
export function applyCommand(shared: Pick<SharedOptions, 'files' | 'url'>, planFile: string): string {
  const args = ['sitesync', 'apply'];
  for (const file of shared.files) args.push('-f', file);
  if (shared.url !== undefined) args.push('--url', shared.url);
  args.push(planFile);
  return args.map(shellWord).join(' ');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
