/**
 * The process edge that commands see: streams, environment, working directory.
 * Commands take an `Io` and return an exit code, so tests run them in-process
 * with captured output (`captureIo`). Everything written goes through `redact`.
 */
import { linkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { EngineContext } from '../engine/context.js';
import { SitesyncError } from '../model/errors.js';
import { redact } from '../model/secret.js';

export { redact };

export interface OutputStream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** The file descriptor behind a process stream (for writers that bypass `write`, e.g. an async log). */
  readonly fd?: number;
}

export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  /**
   * Reads one line from the terminal; undefined when stdin is not a TTY. Resolves
   * to undefined at end of input (Ctrl-D); Ctrl-C (or the run's signal) rejects
   * with `SitesyncError('interrupted')`.
   */
  prompt?: (question: string) => Promise<string | undefined>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
  /** The clock (default: the system's): tests fix the day that ignore_changes rules expire against. */
  now?: () => Date;
  /** The client factory (default: the HTTP client): tests give the client a manual clock, so backoff takes no time. */
  openApi?: EngineContext['openApi'];
}

/** Today as YYYY-MM-DD in UTC, from the Io's clock: the day `until` dates are compared with. */
export function todayOf(io: Pick<Io, 'now'>): string {
  return (io.now?.() ?? new Date()).toISOString().slice(0, 10);
}

function redacting(stream: NodeJS.WriteStream): OutputStream {
  return {
    write: (text) => {
      stream.write(redact(text));
    },
    isTTY: Boolean(stream.isTTY),
    fd: (stream as { fd?: number }).fd,
  };
}

export function processIo(signal?: AbortSignal): Io {
  const io: Io = {
    stdout: redacting(process.stdout),
    stderr: redacting(process.stderr),
    env: process.env,
    cwd: process.cwd(),
  };
  if (signal) io.signal = signal;
  if (process.stdin.isTTY) io.prompt = (question) => askLine(question, signal);
  return io;
}

/**
 * One line from the terminal. readline answers Ctrl-C and Ctrl-D alike (an
 * AbortError), so Ctrl-C is told apart by its own 'SIGINT' event: Ctrl-C (or
 * SIGTERM through `signal`) is an interrupt, Ctrl-D is the end of input.
 */
async function askLine(question: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Closing the interface does not settle a pending question; aborting it does.
  const ctrlC = new AbortController();
  rl.on('SIGINT', () => ctrlC.abort());
  try {
    return await rl.question(question, { signal: signal ? AbortSignal.any([ctrlC.signal, signal]) : ctrlC.signal });
  } catch (error) {
    process.stderr.write('\n');
    if (ctrlC.signal.aborted || signal?.aborted)
      throw new SitesyncError('interrupted', 'interrupted at the prompt', {}, { cause: error });
    return undefined;
  } finally {
    rl.close();
  }
}

export interface CapturedIo extends Io {
  out(): string;
  err(): string;
}

/** An Io for tests: output captured (and redacted, as on a terminal). */
export function captureIo(
  options: { env?: Record<string, string | undefined>; cwd?: string; tty?: boolean; now?: () => Date } = {},
): CapturedIo {
  const stdout = capturing(options.tty ?? false);
  const stderr = capturing(options.tty ?? false);
  const io: CapturedIo = {
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: stdout.text,
    err: stderr.text,
  };
  if (options.now) io.now = options.now;
  return io;
}

function capturing(isTTY: boolean): OutputStream & { text(): string } {
  let captured = '';
  return {
    write: (text) => {
      captured += redact(text);
    },
    isTTY,
    text: () => captured,
  };
}

/**
 * Writes to a temporary file, then renames: a reader (or a crash) never leaves
 * half a file. With `replace: false` the temporary file is hard-linked into
 * place instead, which fails if `path` exists by then (a check made earlier
 * could be stale). A failure is a `usage` SitesyncError naming `shown` (the
 * path as the user gave it) and the reason, and the temporary file is removed.
 */
export function writeAtomically(
  path: string,
  text: string,
  shown: string = path,
  { replace = true }: { replace?: boolean } = {},
): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o644 });
    if (replace) renameSync(temporary, path);
    else linkSync(temporary, path);
  } catch (error) {
    throw new SitesyncError('usage', `cannot write ${shown}: ${writeFailure(error, path)}`);
  } finally {
    rmSync(temporary, { force: true });
  }
}

const isDirectory = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

function writeFailure(error: unknown, path: string): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'its directory does not exist';
    case 'EEXIST': // only from the link of `replace: false`
      return isDirectory(path) ? 'it is a directory' : 'it already exists (created meanwhile; nothing replaced)';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** Whether `error` is the run's own interruption (Ctrl-C, SIGTERM) escaping a wait, not a bug. */
export function aborted(io: Pick<Io, 'signal'>, error: unknown): boolean {
  return io.signal?.aborted === true && error === io.signal.reason;
}
