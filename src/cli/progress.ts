/**
 * Progress of an apply, for people: at 60 requests a minute a 200-change apply
 * takes minutes. On a terminal, one live line (done/total, rate, time left
 * from the rate limiter, the current wait for it) redrawn in place with \r,
 * also every second while nothing finishes (`tick`), and the client's notices
 * printed on their own line above it; elsewhere (CI logs, pipes) one line per
 * finished change. Changes an interrupt left unstarted get no line each: the
 * summary has one line for all of them. Writes to the stream it is given
 * (stderr), never stdout; the words are render/progress.ts's.
 */
import type { Pacing } from '../api/index.js';
import type { Acknowledgements } from '../apply/acknowledge.js';
import type { ProgressEvent } from '../apply/apply-plan.js';
import { isNotStarted } from '../model/apply-result.js';
import { changeLine, liveLine } from '../render/progress.js';
import type { ApplyOutput } from './apply-output.js';
import type { CliContext } from './events.js';
import type { Io } from './io.js';

export interface ProgressStream {
  write(text: string): void;
  readonly isTTY: boolean;
}

export interface ProgressOptions {
  now?: () => number;
  /** The client's rate limiter: the time left and the current wait. */
  pacing?: Pacing;
  /** Requests after the last change (the read-back), for the time left. */
  requestsAfter?: number;
}

export interface ProgressReporter {
  onProgress(event: ProgressEvent): void;
  /** Redraws the live line (terminal): the wait counts down while no change finishes. */
  tick(): void;
  /** A whole line for a person (a client's notice), never glued to the live line. */
  notice(line: string): void;
  /** Clears the live line (terminal) so the summary starts on a clean line. */
  end(): void;
}

const CLEAR_LINE = '\r\x1b[K';

export function progressReporter(
  stream: ProgressStream,
  total: number,
  options: ProgressOptions = {},
): ProgressReporter {
  const now = options.now ?? Date.now;
  const started = now();
  let done = 0;
  let drawn = false;
  let ended = false;
  const draw = () => {
    const left = total - done + (options.requestsAfter ?? 0);
    const pacing = options.pacing && { etaMs: options.pacing.estimateMs(left), waitMs: options.pacing.waitingMs() };
    stream.write(`${CLEAR_LINE}${liveLine({ done, total }, now() - started, pacing)}`);
    drawn = true;
  };
  return {
    onProgress(event) {
      done = event.done;
      if (!stream.isTTY) {
        if (!isNotStarted(event.result)) stream.write(`${changeLine(event.result)}\n`);
        return;
      }
      if (!ended) draw();
    },
    tick() {
      if (stream.isTTY && !ended) draw();
    },
    notice(line) {
      if (!drawn) {
        stream.write(`${line}\n`);
        return;
      }
      stream.write(`${CLEAR_LINE}${line}\n`);
      draw();
    },
    end() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
      ended = true;
    },
  };
}

/**
 * Follows the engine's events while it applies: the plan it made (shown
 * first), then a progress line for the writes, with the client's notices
 * above it. Returns the function that stops following.
 */
export function followApply(
  output: ApplyOutput,
  context: CliContext,
  io: Io,
  asking: boolean,
  acks: Acknowledgements,
): () => void {
  let progress: ProgressReporter | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const notice = context.route.notice;
  context.route.view = (event) => {
    if (event.type === 'planned') output.plan(event.plan, event.target, asking, acks);
    else if (event.type === 'writing') {
      const { pacing, requestsAfter } = event;
      progress = progressReporter(io.stderr, event.total, { pacing, requestsAfter });
      const shown = progress;
      context.route.notice = (line) => shown.notice(line);
      // A wait for the rate limit may last a minute: the live line counts it down instead of freezing.
      ticker = io.stderr.isTTY ? setInterval(() => shown.tick(), 1_000) : undefined;
      ticker?.unref();
    } else if (event.type === 'change') progress?.onProgress(event.progress);
    else return false;
    return true;
  };
  return () => {
    clearInterval(ticker);
    progress?.end();
    context.route.notice = notice;
    context.route.view = undefined;
  };
}
