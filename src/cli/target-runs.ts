/**
 * A command run on several targets, as the terminal shows it: a bounded
 * fan-out (the engine's pool) in which one target's failure never stops
 * another, each target with its own Io (stderr lines named after the target,
 * or its line on the status board), and its exit code, value or error kept
 * for one report.
 */
import { eachBounded } from '../engine/pool.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { isSitesyncError } from '../model/errors.js';
import { type ErrorJson, errorJsonOf } from '../render/error-document.js';
import { exitCodeFor } from './exit-code.js';
import type { Io, OutputStream } from './io.js';
import { wholeNumberOption } from './option-values.js';
import { type StatusBoard, statusBoard } from './status-board.js';

export function targetParallelism(text: string | undefined): number {
  return wholeNumberOption('--target-parallelism', text ?? '4', { min: 1 });
}

/** What one target's run ended with: its exit code, and the error that ended it, if one did. */
export interface TargetOutcome<T> {
  target: TargetDeclaration;
  code: number;
  value?: T;
  /** The error's one-line message (never a secret: messages are redacted by the Io). */
  error?: string;
  /** The same error as the JSON error documents carry it: `{code, message}`. */
  errorJson?: ErrorJson;
  /** Everything the target's run wrote to stdout. */
  stdout: string;
}

/**
 * Runs `work` for every target, at most `bound` at a time, each with its own
 * Io; an error ends only that target's run. Outcomes come back in target order.
 */
export async function fanOut<T>(
  targets: readonly TargetDeclaration[],
  bound: number,
  io: Io,
  work: (target: TargetDeclaration, io: TargetIo) => Promise<{ code: number; value?: T }>,
): Promise<TargetOutcome<T>[]> {
  const board = statusBoard(
    io.stderr,
    targets.map((target) => target.name),
  );
  const outcomes: TargetOutcome<T>[] = new Array(targets.length);
  // One day for every target: the same day decides which ignore_changes rules have expired.
  const started = io.now?.() ?? new Date();
  const now = () => started;
  try {
    await eachBounded(targets, bound, async (target, index) => {
      const targetIo = targetIoFor(io, target.name, board, now);
      board.update(target.name, 'started');
      const outcome = await runOne(target, targetIo, work);
      outcomes[index] = outcome;
      targetIo.flush();
      board.update(target.name, outcome.error !== undefined ? `failed: ${outcome.error}` : statusWord(outcome.code));
    });
  } finally {
    board.end();
  }
  return outcomes;
}

async function runOne<T>(
  target: TargetDeclaration,
  io: TargetIo,
  work: (target: TargetDeclaration, io: TargetIo) => Promise<{ code: number; value?: T }>,
): Promise<TargetOutcome<T>> {
  try {
    const { code, value } = await work(target, io);
    return { target, code, ...(value !== undefined && { value }), stdout: io.out() };
  } catch (error) {
    const aborted = io.signal?.aborted === true && error === io.signal.reason;
    const message = isSitesyncError(error) ? error.message : error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${message}\n`);
    const code = exitCodeFor({ kind: 'failed', error, aborted });
    return { target, code, error: message, errorJson: errorJsonOf(error, aborted), stdout: io.out() };
  }
}

function statusWord(code: number): string {
  return code === 0 ? 'done' : `done (exit ${code})`;
}

/** A target's Io: stdout kept for the report, stderr lines named after the target. */
export interface TargetIo extends Io {
  out(): string;
  /** Writes a last unfinished stderr line. */
  flush(): void;
}

/**
 * stderr: off a terminal, every line is written at once as `[name] line`; on
 * a terminal, the target's latest line is its line on the status board and
 * the lines are written, grouped under the target's name, when it ends.
 * No prompt: with targets, apply takes --auto-approve or a reviewed plan file.
 */
function targetIoFor(io: Io, name: string, board: StatusBoard, now: () => Date): TargetIo {
  let captured = '';
  let pending = '';
  const kept: string[] = [];
  const tty = io.stderr.isTTY;
  const line = (text: string) => {
    const shown = text
      .split('\r')
      .map((part) => part.replaceAll('\x1b[K', ''))
      .findLast((part) => part !== '');
    if (shown !== undefined) board.update(name, shown);
    if (!tty) io.stderr.write(`[${name}] ${text}\n`);
    else if (text.trim() !== '' && !text.includes('\r')) kept.push(text);
  };
  const stderr: OutputStream = {
    isTTY: tty,
    write: (text) => {
      const parts = (pending + text).split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) line(part);
      if (tty && pending.includes('\r')) {
        line(pending);
        pending = '';
      }
    },
  };
  const targetIo: TargetIo = {
    stdout: {
      isTTY: io.stdout.isTTY,
      write: (text) => {
        captured += text;
      },
    },
    stderr,
    env: io.env,
    cwd: io.cwd,
    out: () => captured,
    flush: () => {
      if (pending !== '') line(pending);
      pending = '';
      if (kept.length > 0) board.print(kept.map((text) => `[${name}] ${text}`));
      kept.length = 0;
    },
  };
  if (io.signal) targetIo.signal = io.signal;
  targetIo.now = now;
  return targetIo;
}
