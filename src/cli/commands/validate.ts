/**
 * `sitesync validate [-f FILE]... [--format text|json]`: checks the
 * configuration and lists every problem with file:line:column. Exit 0 when
 * valid (warnings printed), 1 otherwise. The result goes to stdout: it is
 * what the command is for.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { formatProblem, type LoadResult, loadConfig, omittedLine } from '../../config/index.js';
import { forTarget } from '../../config/targets.js';
import type { ConfigProblem, TargetDeclaration } from '../../model/desired-state.js';
import {
  type ProblemView,
  renderTargetsValidateJson,
  renderTargetsValidateText,
  renderValidateJson,
  renderValidateText,
  type TargetValidateView,
  type ValidateView,
} from '../../render/validate.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { type Io, todayOf } from '../io.js';
import { collect, targetOption } from '../option-values.js';

export interface ValidateOptions {
  file: string[];
  format: 'text' | 'json';
  /** --target, repeatable, globs allowed. */
  target?: string[];
}

export function registerValidate(program: Command, context: CommandContext): void {
  program
    .command('validate')
    .description('check websites.yaml and list every problem with file:line:column')
    // No commander default for -f: it would print "(default: [])" next to ours.
    .option('-f, --file <path>', 'configuration file or directory; repeatable (default: websites.yaml)', collect)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json'] as const).default('text'))
    .addOption(targetOption())
    .action(async ({ file, format, target }) => {
      await context.run(async () => runValidate({ file: file ?? [], format, target: target ?? [] }, context.io));
    });
}

export async function runValidate(options: ValidateOptions, io: Io): Promise<number> {
  const result = await validateFiles(options.file, io);
  const targets = result.state?.targets;
  if (targets !== undefined) return validateTargets(targets, options, io);
  const chosen = options.target ?? [];
  if (chosen.length > 0) (await targetSteps()).refuseTargetsWithout({ targets: chosen });
  const view = validateView(result);
  io.stdout.write(options.format === 'json' ? renderValidateJson(view) : renderValidateText(view));
  return exitCodeFor({ kind: 'validated', valid: result.state !== undefined });
}

/**
 * engine/targets.ts, loaded only for a configuration with targets or a --target:
 * it imports the HTTP client, which a plain `validate` never needs (start-up time, docs/benchmarks.md).
 */
const targetSteps = () => import('../../engine/targets.js');

async function validateFiles(files: string[], io: Io): Promise<LoadResult> {
  const loaded = await loadConfig({
    files,
    cwd: io.cwd,
    env: io.env,
    advice: true,
    today: todayOf(io),
    secrets: 'check',
    signal: io.signal,
  });
  // Rules are compiled by the CEL library, loaded only for a configuration that has some.
  if (loaded.state?.policies === undefined) return loaded;
  return (await import('../../engine/policies.js')).withPolicyProblems(loaded);
}

/** Each chosen target's merged configuration (the files plus its own), checked offline, its name on every problem. */
async function validateTargets(declared: TargetDeclaration[], options: ValidateOptions, io: Io): Promise<number> {
  const { selectTargets, targetFiles } = await targetSteps();
  const views: TargetValidateView[] = [];
  for (const target of selectTargets(declared, options.target ?? [])) {
    const result = await validateFiles(targetFiles(options.file, target, io.cwd), io);
    const view = validateView(result, `[${target.name}] `);
    if (result.state !== undefined) {
      const state = forTarget(result.state, target);
      view.valid = { files: state.files, websites: state.websites.length, digest: state.digest };
    }
    views.push({ name: target.name, ...view });
  }
  io.stdout.write(options.format === 'json' ? renderTargetsValidateJson(views) : renderTargetsValidateText(views));
  return exitCodeFor({ kind: 'validated', valid: views.every((view) => view.valid !== undefined) });
}

function validateView(result: LoadResult, prefix = ''): ValidateView {
  const withText = (problem: ConfigProblem): ProblemView => ({
    ...problem,
    text: `${prefix}${formatProblem(problem)}`,
  });
  const view: ValidateView = {
    files: result.files,
    errors: result.errors.map(withText),
    warnings: result.warnings.map(withText),
    omitted: {
      ...result.omitted,
      ...(result.omitted.errors > 0 && { errorsLine: `${prefix}${omittedLine(result.omitted.errors, 'error')}` }),
      ...(result.omitted.warnings > 0 && {
        warningsLine: `${prefix}${omittedLine(result.omitted.warnings, 'warning')}`,
      }),
    },
  };
  const { state } = result;
  if (state) view.valid = { files: state.files, websites: state.websites.length, digest: state.digest };
  return view;
}
