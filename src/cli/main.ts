/**
 * Command-line wiring: commander parses, each command module does the work and
 * returns an exit code. Nothing here calls process.exit (bin/sitesync.js does).
 */
import { Command, CommanderError } from '@commander-js/extra-typings';
import { isSitesyncError } from '../model/errors.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './command-context.js';
import { registerApply } from './commands/apply.js';
import { registerExport } from './commands/export.js';
import { registerPlan } from './commands/plan.js';
import { registerSchema } from './commands/schema.js';
import { registerServe } from './commands/serve.js';
import { registerValidate } from './commands/validate.js';
import { exitCodeFor } from './exit-code.js';
import { EXIT, type Io } from './io.js';

export async function main(argv: string[], io: Io): Promise<number> {
  let exitCode: number = EXIT.ok;
  const context: CommandContext = {
    io,
    run: async (body) => {
      try {
        exitCode = await body();
      } catch (error) {
        exitCode = reportError(error, io);
      }
    },
  };

  const program = new Command()
    .name('sitesync')
    .description('Keep the websites of a web-analytics service as code.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(run sitesync --help for usage)');

  for (const register of [
    registerValidate,
    registerSchema,
    registerPlan,
    registerApply,
    registerExport,
    registerServe,
  ]) {
    register(program, context);
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeFor({ kind: 'usage', helpShown: error.exitCode === 0 });
    return reportError(error, io);
  }
  return exitCode;
}

/** One readable line for a user error; a stack trace only for a bug. Ctrl-C (SIGINT/SIGTERM) exits 130. */
export function reportError(error: unknown, io: Io): number {
  const aborted = io.signal?.aborted === true && error === io.signal.reason;
  if (isSitesyncError(error)) {
    io.stderr.write(`error: ${error.message}\n`);
  } else if (aborted) {
    // The raw abort reason escaped a wait somewhere: still an interruption, not a bug.
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: interrupted (${reason})\n`);
  } else {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`internal error (please report): ${detail}\n`);
  }
  return exitCodeFor({ kind: 'failed', error, aborted });
}
