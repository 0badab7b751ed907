/**
 * The process's own Io (io.ts): its environment, a prompt on the terminal, and
 * stdout and stderr redacted and quiet once their reader has gone (or writing
 * them failed: docs/exit-codes.md, "A failed output"). A reader
 * that leaves (`| head`, `| grep -q`, `less` then q) closes the pipe, and the
 * next write fails with EPIPE, which Node reports as an 'error' event on the
 * stream: unhandled, a stack trace and exit 1. Here that stream is written no
 * more (its later lines are dropped) and `outputClosed` aborts; what each
 * command does then is in docs/exit-codes.md, "A closed output".
 */
import { SitesyncError } from '../model/errors.js';
import { redact } from '../model/secret.js';
import { type Io, OutputFailed, type OutputStream } from './io.js';

export function processIo(signal?: AbortSignal): Io {
  const { stdout, stderr, closed, settle } = processOutput();
  const io: Io = { stdout, stderr, outputClosed: closed, settleOutput: settle, env: process.env, cwd: process.cwd() };
  if (signal) io.signal = signal;
  // A question on a stderr nobody reads any more would wait for an answer to nothing.
  const asking = signal === undefined ? closed : AbortSignal.any([signal, closed]);
  if (process.stdin.isTTY) io.prompt = (question) => askLine(question, asking);
  return io;
}

export interface ProcessOutput {
  stdout: OutputStream;
  stderr: OutputStream;
  /**
   * Aborts when the reader of stdout or stderr has gone (the reason names the
   * stream: `stdout closed`) or writing one failed (an `OutputFailed`).
   */
  closed: AbortSignal;
  /** Settles once both streams have written (or failed) everything given so far. */
  settle: () => Promise<void>;
}

/** The write error of a stream whose reader has gone: a pipe (EPIPE) or a socket (ECONNRESET). */
function readerGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET';
}

type ProcessStream = Pick<NodeJS.WriteStream, 'write' | 'on' | 'isTTY'>;

/**
 * The process streams (tests give others), redacted, each dropped once its
 * reader has gone or writing it failed. A failed write (a full disk behind
 * `> out.txt`, EIO) is said once on the other stream; `closed` then aborts
 * with an `OutputFailed` reason (main.ts: exit 1).
 */
export function processOutput(streams: { stdout: ProcessStream; stderr: ProcessStream } = process): ProcessOutput {
  const closing = new AbortController();
  const stop = (reason: Error) => {
    if (!closing.signal.aborted) closing.abort(reason);
  };
  const outputs = {} as Record<'stdout' | 'stderr', OutputStream & { flush(): Promise<void> }>;
  const watched = (stream: ProcessStream, name: 'stdout' | 'stderr', other: 'stdout' | 'stderr') => {
    let open = true;
    stream.on('error', (error) => {
      if (!open) return; // a write queued before the first error failing too
      open = false;
      if (readerGone(error)) return stop(new Error(`${name} closed`));
      const failed = new OutputFailed(name, error);
      outputs[other].write(`sitesync: ${failed.message}\n`);
      stop(failed);
    });
    return {
      write: (text: string) => {
        if (open) stream.write(redact(text));
      },
      isTTY: Boolean(stream.isTTY),
      fd: (stream as { fd?: number }).fd,
      // An empty write's callback runs once the writes before it are done, or failed (their 'error' first).
      flush: () => new Promise<void>((resolve) => (open ? stream.write('', () => resolve()) : resolve())),
    };
  };
  outputs.stdout = watched(streams.stdout, 'stdout', 'stderr');
  outputs.stderr = watched(streams.stderr, 'stderr', 'stdout');
  const { stdout, stderr } = outputs;
  return {
    stdout,
    stderr,
    closed: closing.signal,
    settle: async () => {
      await Promise.all([stdout.flush(), stderr.flush()]);
    },
  };
}

/**
 * One line from the terminal. readline answers Ctrl-C and Ctrl-D alike (an
 * AbortError), so Ctrl-C is told apart by its own 'SIGINT' event: Ctrl-C (or
 * SIGTERM or a closed output through `signal`) is an interrupt, Ctrl-D is the end of input.
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
