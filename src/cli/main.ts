/**
 * Command-line wiring: commander parses, each command module does the work and
 * returns an exit code. Nothing here calls process.exit (bin/sitesync.js does).
 */
import { Command, CommanderError } from '@commander-js/extra-typings';
import { isSitesyncError } from '../model/errors.js';
import { printable } from '../model/text.js';
import { renderApplyError, renderPlanError } from '../render/error-document.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './command-context.js';
import { EXIT, exitCodeFor } from './exit-code.js';
import { aborted as abortedBy, type Io, OutputFailed } from './io.js';

/** Runs one command line; `serviceIo` as the process gives it (serve and watch run on it, the rest on `io` below). */
export async function main(argv: string[], serviceIo: Io): Promise<number> {
  let exitCode: number = EXIT.ok;
  const io = stoppingWhenOutputCloses(serviceIo);
  let runsUntilStopped = false;
  const runWith = async (body: () => Promise<number>, on: Io) => {
    try {
      exitCode = await body();
    } catch (error) {
      exitCode = reportError(error, on);
    }
  };
  const context: CommandContext = {
    io,
    run: (body) => runWith(body, io),
    runService: (body) => {
      // A failed output does not change the exit code of a command that runs until stopped.
      runsUntilStopped = true;
      return runWith(() => body(serviceIo), serviceIo);
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

  for (const register of await registrationsFor(argv)) register(program, context);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode !== 0) writeUsageDocument(argv, error.message, io);
      return exitCodeFor({ kind: 'usage', helpShown: error.exitCode === 0 });
    }
    return reportError(error, io);
  }
  await io.settleOutput?.(); // a write's failure surfaces after it (a full disk): before the code is decided
  return runsUntilStopped ? exitCode : closedOutputExit(exitCode, io);
}

/** The Io of a command that ends by itself: a closed output interrupts it, as Ctrl-C does. */
function stoppingWhenOutputCloses(io: Io): Io {
  const { signal, outputClosed } = io;
  if (outputClosed === undefined) return io;
  return { ...io, signal: signal === undefined ? outputClosed : AbortSignal.any([signal, outputClosed]) };
}

/**
 * A run interrupted because its reader went away exits 141, as a shell reports
 * a process a closed pipe killed (128 + SIGPIPE), and says so on the other
 * stream (an apply's summary, on stdout, is lost); a command that had finished
 * its work when the pipe closed keeps its own code. A failed write (a full
 * disk: `OutputFailed`, already said on the other stream) exits 1 whenever it
 * came, as coreutils do: the output is incomplete. A signal that came first
 * keeps its code (docs/exit-codes.md).
 */
function closedOutputExit(code: number, io: Io): number {
  const { signal, outputClosed } = io;
  if (outputClosed?.aborted !== true) return code;
  const byClosedOutput = signal?.reason === outputClosed.reason;
  if (code === EXIT.interrupted && !byClosedOutput) return code;
  if (outputClosed.reason instanceof OutputFailed) return EXIT.error;
  if (code !== EXIT.interrupted) return code;
  const closed = (outputClosed.reason as Error).message; // `stdout closed`
  io.stderr.write(`sitesync: ${closed} by its reader, so the run stopped as on Ctrl-C (exit 141)\n`);
  return EXIT.outputClosed;
}

type Register = (program: Command, context: CommandContext) => void;

/**
 * Each command's module (and what it imports: YAML, HTTP client, server) is
 * loaded only when that command runs, so start-up stays small; help, `help`
 * and unknown commands load them all, in this order.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['validate', async () => (await import('./commands/validate.js')).registerValidate],
  ['schema', async () => (await import('./commands/schema.js')).registerSchema],
  ['plan', async () => (await import('./commands/plan.js')).registerPlan],
  ['apply', async () => (await import('./commands/apply.js')).registerApply],
  ['export', async () => (await import('./commands/export.js')).registerExport],
  ['serve', async () => (await import('./commands/serve.js')).registerServe],
  ['watch', async () => (await import('./commands/watch.js')).registerWatch],
  ['history', async () => (await import('./commands/history.js')).registerHistory],
];

/** The commands whose modules `argv` needs: the one it names, none for --version, else all (help, typos). */
export function commandsFor(argv: readonly string[]): string[] {
  const names = COMMANDS.map(([name]) => name);
  if (argv[0] !== undefined && names.includes(argv[0])) return [argv[0]];
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return [];
  return names;
}

async function registrationsFor(argv: readonly string[]): Promise<Register[]> {
  const wanted = commandsFor(argv);
  return Promise.all(COMMANDS.filter(([name]) => wanted.includes(name)).map(([, load]) => load()));
}

/**
 * A command line commander rejects (unknown option, bad --format value) never
 * reaches the command: when it asked plan or apply for JSON, stdout still
 * gets the command's error document (commander has written the message to stderr).
 */
function writeUsageDocument(argv: readonly string[], message: string, io: Io): void {
  const command = argv[0];
  if (command !== 'plan' && command !== 'apply') return;
  const json = argv.some((arg, index) => arg === '--format=json' || (arg === '--format' && argv[index + 1] === 'json'));
  if (!json) return;
  const error = { code: 'usage' as const, message: message.replace(/^error: /, '') };
  io.stdout.write(command === 'plan' ? renderPlanError(error) : renderApplyError(error));
}

/** One readable line for a user error; a stack trace only for a bug. Ctrl-C (SIGINT/SIGTERM) exits 130. */
export function reportError(error: unknown, io: Io): number {
  const aborted = abortedBy(io, error);
  if (isSitesyncError(error)) {
    // Messages quote the service (domains, error bodies): no raw control byte reaches the terminal.
    io.stderr.write(`error: ${error.message.split('\n').map(printable).join('\n')}\n`);
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
