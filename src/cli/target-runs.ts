/**
 * A command run on several targets, as the terminal shows it (the engine
 * runs them): each target's own Io (stderr lines named after the target off
 * a terminal; on a terminal its latest line on a status board of one line
 * per target, its lines printed grouped when it ends), and what each target
 * ended with, kept for one report.
 */
import type { TargetDeclaration } from '../model/desired-state.js';
import type { ErrorJson } from '../render/error-document.js';
import type { Io, OutputStream } from './io.js';

/** What one target's run ended with: its exit code, value, or the error that ended it. */
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

/** The terminal's view of a run over targets. */
export class TargetRuns {
  readonly #io: Io;
  readonly #board: StatusBoard;
  readonly #ios = new Map<string, TargetIo>();
  readonly #now: () => Date;

  constructor(io: Io, targets: readonly TargetDeclaration[]) {
    this.#io = io;
    this.#board = statusBoard(
      io.stderr,
      targets.map((target) => target.name),
    );
    // One day for every target: the same day decides which ignore_changes rules have expired.
    const started = io.now?.() ?? new Date();
    this.#now = () => started;
  }

  /** The target's Io, as it starts. */
  start(target: TargetDeclaration): TargetIo {
    const targetIo = targetIoFor(this.#io, target.name, this.#board, this.#now);
    this.#ios.set(target.name, targetIo);
    this.#board.update(target.name, 'started');
    return targetIo;
  }

  /** The target's Io (started before). */
  ioOf(target: TargetDeclaration): TargetIo {
    return this.#ios.get(target.name) ?? this.start(target);
  }

  /** The target ended (`error`: the message of the error that ended it): its lines and status shown. */
  end(target: TargetDeclaration, code: number, error?: string): void {
    const targetIo = this.ioOf(target);
    if (error !== undefined) targetIo.stderr.write(`error: ${error}\n`);
    targetIo.flush();
    this.#board.update(target.name, error !== undefined ? `failed: ${error}` : statusWord(code));
  }

  /** Leaves the last statuses on the screen. */
  finish(): void {
    this.#board.end();
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
  /** Lines for the person now, above the status board (a question's context). */
  print(lines: readonly string[]): void;
}

/**
 * stderr: off a terminal, every line is written at once as `[name] line`; on
 * a terminal, the target's latest line is its line on the status board and
 * the lines are written, grouped under the target's name, when it ends.
 * No prompt of its own: an interactive apply asks once for all (engine/ask-once.ts).
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
    print: (lines) => board.print(lines),
    flush: () => {
      if (pending !== '') line(pending);
      pending = '';
      if (kept.length > 0) board.print(kept.map((text) => `[${name}] ${text}`));
      kept.length = 0;
    },
  };
  if (io.signal) targetIo.signal = io.signal;
  if (io.openApi) targetIo.openApi = io.openApi;
  targetIo.now = now;
  return targetIo;
}

/** One line per target (its latest status), redrawn in place; lines printed meanwhile go above it. */
interface StatusBoard {
  update(name: string, status: string): void;
  /** Lines that stay: written above the board. */
  print(lines: readonly string[]): void;
  /** Leaves the last statuses on the screen. */
  end(): void;
}

const WIDTH = 100;

function statusBoard(stream: OutputStream, names: readonly string[]): StatusBoard {
  if (!stream.isTTY) {
    return {
      update: () => {},
      print: (lines) => stream.write(lines.map((line) => `${line}\n`).join('')),
      end: () => {},
    };
  }
  const statuses = new Map(names.map((name) => [name, 'waiting']));
  const width = Math.max(...names.map((name) => name.length));
  let drawn = 0;
  const erase = () => {
    if (drawn > 0) stream.write(`\x1b[${drawn}A\r\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    let text = '';
    for (const [name, status] of statuses) {
      text += `${`${name.padEnd(width)}  ${status}`.slice(0, WIDTH)}\n`;
    }
    stream.write(text);
    drawn = statuses.size;
  };
  return {
    update(name, status) {
      statuses.set(name, status);
      erase();
      draw();
    },
    print(lines) {
      erase();
      stream.write(lines.map((line) => `${line}\n`).join(''));
      draw();
    },
    end() {},
  };
}
