/**
 * The process edge that commands see: streams, environment, working directory.
 * Commands take an `Io` and return an exit code, so tests run them in-process
 * with captured output (`captureIo`); the process's own is `processIo`
 * (process-io.ts). Everything written goes through `redact`.
 */
import { linkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { EngineContext } from '../engine/context.js';
import { errnoInWords } from '../model/errno.js';
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
  /** Aborted on SIGINT/SIGTERM (and, for a command that ends by itself, when `outputClosed` aborts: main.ts). */
  signal?: AbortSignal;
  /**
   * Aborted when the reader of stdout or stderr has gone (`| head`) or writing
   * one failed (reason: `OutputFailed`); that stream's lines are dropped from then on.
   */
  outputClosed?: AbortSignal;
  /** Settles once everything written so far is out or has failed (so `outputClosed` is up to date). */
  settleOutput?: () => Promise<void>;
  /** The clock (default: the system's): tests fix the day that ignore_changes rules expire against. */
  now?: () => Date;
  /** The client factory (default: the HTTP client): tests give the client a manual clock, so backoff takes no time. */
  openApi?: EngineContext['openApi'];
}

/** Today as YYYY-MM-DD in UTC, from the Io's clock: the day `until` dates are compared with. */
export function todayOf(io: Pick<Io, 'now'>): string {
  return (io.now?.() ?? new Date()).toISOString().slice(0, 10);
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
 * Writes to a temporary file, then renames: a reader (or a crash, or a full
 * disk) never leaves half a file in place of a good one. With `replace: false`
 * the temporary file is hard-linked into place instead, which fails if `path`
 * exists by then (a check made earlier could be stale). A device or a pipe
 * (`--out /dev/stdout`, a FIFO) is written into, never replaced by a file. A
 * failure is a `usage` SitesyncError naming `shown` (the path as the user gave
 * it) and the reason, and the temporary file is removed.
 */
export function writeAtomically(
  path: string,
  text: string,
  shown: string = path,
  { replace = true }: { replace?: boolean } = {},
): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    if (replace && isSpecial(path)) {
      writeFileSync(path, text);
      return;
    }
    writeFileSync(temporary, text, { mode: 0o644 });
    if (replace) renameSync(temporary, path);
    else linkSync(temporary, path);
  } catch (error) {
    throw new SitesyncError('usage', `cannot write ${shown}: ${writeFailure(error, path)}`);
  } finally {
    removeQuietly(temporary);
  }
}

/** Neither a regular file nor a directory (nor missing): a device, a pipe, a socket. */
const isSpecial = (path: string) => {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat !== undefined && !stat.isFile() && !stat.isDirectory();
};

/** A temporary file that may not exist, or whose path cannot (`/dev/full/x`: ENOTDIR). */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was created there
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
    default:
      return errnoInWords(error);
  }
}

/** Why stdout or stderr is written no more when writing it failed (a full disk, EIO), not for a reader gone. */
export class OutputFailed extends Error {
  constructor(stream: 'stdout' | 'stderr', error: unknown) {
    super(`cannot write to ${stream}: ${errnoInWords(error)}`, { cause: error });
    this.name = 'OutputFailed';
  }
}

/** Whether `error` is the run's own interruption (Ctrl-C, SIGTERM) escaping a wait, not a bug. */
export function aborted(io: Pick<Io, 'signal'>, error: unknown): boolean {
  return io.signal?.aborted === true && error === io.signal.reason;
}
