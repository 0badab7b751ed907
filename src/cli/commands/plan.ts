/**
 * `sitesync plan`: load the configuration, list the live websites, plan, and
 * print the plan as human text, JSON or Markdown; optionally save it for a
 * later `apply` (--out). Never changes anything. Exit codes (docs/exit-codes.md):
 * 0 no changes (or changes without --detailed-exitcode), 2 changes with
 * --detailed-exitcode, 3 the plan violates a safety limit, 1 any error.
 */
import { resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import type { Plan } from '../../model/plan.js';
import { createSavedPlan, explain, type SiteExplanation, serializeSavedPlan, signSavedPlan } from '../../plan/index.js';
import { errorJsonOf, renderPlanError } from '../../render/error-document.js';
import { renderHuman, renderJson, renderMarkdown } from '../../render/index.js';
import { loadBaseline } from '../baseline.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { aborted, type Io, writeAtomically } from '../io.js';
import { readSyncWriteOnly, syncWriteOnlyOption } from '../option-values.js';
import { openSession, planSession, requireResentPasswords } from '../prepare.js';
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
  explain?: boolean | undefined;
  syncWriteOnly?: string[] | boolean | undefined;
}

export function registerPlan(program: Command, context: CommandContext): void {
  const command = program.command('plan').description('show what apply would change, field by field (changes nothing)');
  for (const option of baselineOptions()) command.addOption(option);
  addSharedOptions(command, FORMATS)
    .addOption(new Option('--out <file>', 'save the plan for `sitesync apply <file>` (no secrets in it)'))
    .addOption(new Option('--detailed-exitcode', 'exit 2 when there are changes (0 when none)'))
    .addOption(new Option('--explain', 'show raw and canonical values of every compared field'))
    .addOption(syncWriteOnlyOption())
    .action(async (raw) => {
      await context.run(async () => {
        try {
          return await runPlan(readSharedOptions(raw, context.io, FORMATS), raw, context.io);
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
  const syncWriteOnly = readSyncWriteOnly(flags.syncWriteOnly);
  // Passwords are resolved where they are needed: requireResentPasswords, after planning.
  const session = await openSession(shared, io, undefined, 'check');
  const { api, state } = session;
  try {
    const baseline = loadBaseline(shared.files, { baseline: flags.baseline }, io);
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
    if (flags.out !== undefined) {
      const saved = createSavedPlan({
        target: api.url,
        configDigest: state.digest,
        keyId: session.connection.keyId,
        policy,
        plan: result,
        live,
      });
      const signed = signSavedPlan(saved, session.connection.sign);
      writeAtomically(resolve(io.cwd, flags.out), serializeSavedPlan(signed), flags.out);
      io.stderr.write(`plan saved to ${flags.out}: apply it with \`${applyCommand(shared, flags.out)}\`\n`);
    }
    const explanation = flags.explain ? explain(state.websites, live, policy) : undefined;
    io.stdout.write(render(result, shared, api.url, explanation));
    return exitCodeFor({ kind: 'planned', plan: result, detailedExitcode: flags.detailedExitcode === true });
  } finally {
    await api.close();
  }
}

function render(result: Plan, shared: SharedOptions, target: string, explanation?: SiteExplanation[]): string {
  const extra = explanation === undefined ? {} : { explain: explanation };
  switch (shared.format) {
    case 'json':
      return renderJson(result, { target, ...extra });
    case 'markdown':
      return renderMarkdown(result, { target });
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
