/**
 * Progress of an apply, for people: at 60 requests a minute a 200-change apply
 * takes minutes. On a terminal, one live line (done/total, rate, time left)
 * redrawn in place with \r; elsewhere (CI logs, pipes) one line per finished
 * change. Writes to the stream it is given (stderr), never stdout; the words
 * are render/progress.ts's.
 */
import type { ProgressEvent } from '../apply/apply-plan.js';
import { changeLine, liveLine } from '../render/progress.js';

export interface ProgressStream {
  write(text: string): void;
  readonly isTTY: boolean;
}

export interface ProgressReporter {
  onProgress(event: ProgressEvent): void;
  /** Clears the live line (terminal) so the summary starts on a clean line. */
  end(): void;
}

const CLEAR_LINE = '\r\x1b[K';

export function progressReporter(stream: ProgressStream, now: () => number = Date.now): ProgressReporter {
  const started = now();
  let drawn = false;
  return {
    onProgress(event) {
      if (!stream.isTTY) {
        stream.write(`${changeLine(event.result)}\n`);
        return;
      }
      stream.write(`${CLEAR_LINE}${liveLine(event, now() - started)}`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write(CLEAR_LINE);
      drawn = false;
    },
  };
}
