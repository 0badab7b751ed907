/**
 * `sitesync validate [-f FILE]... [--format text|json]`: checks the
 * configuration and lists every problem with file:line:column. Exit 0 when
 * valid (warnings printed), 1 otherwise. The result goes to stdout: it is
 * what the command is for.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { formatProblem, type LoadResult, loadConfig } from '../../config/index.js';
import type { ConfigProblem } from '../../model/desired-state.js';
import { countOf } from '../../model/text.js';
import { EXIT, type Io } from '../io.js';
import type { CommandContext } from '../main.js';
import { collect } from '../repeatable.js';

export interface ValidateOptions {
  file: string[];
  format: 'text' | 'json';
}

/** Version of the JSON output's shape; bumped on incompatible change. */
export const VALIDATE_FORMAT_VERSION = 1;

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
  const result = loadConfig({ files: options.file, cwd: io.cwd, env: io.env, advice: true });
  io.stdout.write(options.format === 'json' ? `${JSON.stringify(toJson(result), null, 2)}\n` : toText(result));
  return result.state ? EXIT.ok : EXIT.error;
}

function toText(result: LoadResult): string {
  const lines = [...result.errors, ...result.warnings].map(formatProblem);
  const warnings = countOf(result.warnings.length, 'warning');
  if (result.state) {
    const files = result.state.files.join(', ');
    lines.push(`${files}: valid (${countOf(result.state.websites.length, 'website')}, ${warnings})`);
  } else {
    lines.push(`invalid: ${countOf(result.errors.length, 'error')}, ${warnings}`);
  }
  return `${lines.join('\n')}\n`;
}

function problemJson(problem: ConfigProblem): Record<string, unknown> {
  return {
    file: problem.source?.file ?? null,
    line: problem.source?.line ?? null,
    column: problem.source?.column ?? null,
    path: problem.path,
    message: problem.message,
    text: formatProblem(problem),
  };
}

function toJson(result: LoadResult): Record<string, unknown> {
  return {
    formatVersion: VALIDATE_FORMAT_VERSION,
    valid: result.state !== undefined,
    files: result.files,
    websites: result.state?.websites.length ?? 0,
    digest: result.state?.digest ?? null,
    errors: result.errors.map(problemJson),
    warnings: result.warnings.map(problemJson),
  };
}
