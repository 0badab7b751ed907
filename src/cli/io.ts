/**
 * The process edge that commands see: streams, environment, working directory.
 * Commands take an `Io` and return an exit code, so tests run them in-process
 * with captured output (`captureIo`). Everything written goes through `redact`.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { redact } from '../model/secret.js';

export interface OutputStream {
  write(text: string): void;
  readonly isTTY: boolean;
}

export interface Io {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Reads one line from the terminal; undefined when stdin is not a TTY. */
  prompt?: (question: string) => Promise<string>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** Exit codes, documented in docs/exit-codes.md. */
export const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  unsafe: 3,
  /** Ctrl-C: in-flight requests finished, the rest skipped. */
  interrupted: 130,
} as const;

function redacting(stream: NodeJS.WriteStream): OutputStream {
  return {
    write: (text) => {
      stream.write(redact(text));
    },
    isTTY: Boolean(stream.isTTY),
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
  if (process.stdin.isTTY) {
    io.prompt = async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    };
  }
  return io;
}

export interface CapturedIo extends Io {
  out(): string;
  err(): string;
}

/** An Io for tests: output captured (and redacted, as on a terminal). */
export function captureIo(
  options: { env?: Record<string, string | undefined>; cwd?: string; tty?: boolean } = {},
): CapturedIo {
  const stdout = capturing(options.tty ?? false);
  const stderr = capturing(options.tty ?? false);
  return {
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: stdout.text,
    err: stderr.text,
  };
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

/** Writes to a temporary file, then renames: a reader (or a crash) never leaves half a file. */
export function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, path);
}
