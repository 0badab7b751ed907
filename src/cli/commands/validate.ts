/**
 * `sitesync validate [-f FILE]... [--format text|json]`: checks the
 * configuration and lists every problem with file:line:column. Exit 0 when
 * valid (warnings printed), 1 otherwise. The result goes to stdout: it is
 * what the command is for.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { formatProblem, type LoadResult, loadConfig } from '../../config/index.js';
import type { ConfigProblem } from '../../model/desired-state.js';
import { type ProblemView, renderValidateJson, renderValidateText, type ValidateView } from '../../render/validate.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { type Io, todayOf } from '../io.js';
import { collect } from '../repeatable.js';

export interface ValidateOptions {
  file: string[];
  format: 'text' | 'json';
}

export function registerValidate(program: Command, context: CommandContext): void {
  program
    .command('validate')
    .description('check websites.yaml and list every problem with file:line:column')
    // No commander default for -f: it would print "(default: [])" next to ours.
    .option('-f, --file <path>', 'configuration file or directory; repeatable (default: websites.yaml)', collect)
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json'] as const).default('text'))
    .action(async (options) => {
      await context.run(async () => runValidate({ file: options.file ?? [], format: options.format }, context.io));
    });
}

export async function runValidate(options: ValidateOptions, io: Io): Promise<number> {
  const result = await loadConfig({
    files: options.file,
    cwd: io.cwd,
    env: io.env,
    advice: true,
    today: todayOf(io),
    secrets: 'check',
    signal: io.signal,
  });
  const view = validateView(result);
  io.stdout.write(options.format === 'json' ? renderValidateJson(view) : renderValidateText(view));
  return exitCodeFor({ kind: 'validated', valid: result.state !== undefined });
}

function validateView(result: LoadResult): ValidateView {
  const withText = (problem: ConfigProblem): ProblemView => ({ ...problem, text: formatProblem(problem) });
  const view: ValidateView = {
    files: result.files,
    errors: result.errors.map(withText),
    warnings: result.warnings.map(withText),
  };
  const { state } = result;
  if (state) view.valid = { files: state.files, websites: state.websites.length, digest: state.digest };
  return view;
}
