/**
 * Progress of an apply, for people: at 60 requests a minute a 200-change apply
 * takes minutes. On a terminal, one live line (done/total, rate, time left)
 * redrawn in place with \r; elsewhere (CI logs, pipes) one line per finished
 * change. Writes to the stream it is given (stderr), never stdout.
 */
import type { ProgressEvent } from './apply-plan.js';
import type { ChangeResult } from './result.js';

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

/** `applied  update example.com`, `failed   create a.com: reason`. */
export function changeLine(result: ChangeResult): string {
  const line = `${result.outcome.padEnd(8)} ${result.action} ${result.domain}`;
  return result.reason === undefined ? line : `${line}: ${result.reason}`;
}

/** `applying 37/200 · 12.5 changes/min · about 2m 10s left`. */
export function liveLine(event: Pick<ProgressEvent, 'done' | 'total'>, elapsedMs: number): string {
  const perMinute = elapsedMs > 0 ? (event.done * 60_000) / elapsedMs : 0;
  const left = event.total - event.done;
  const eta = perMinute > 0 && left > 0 ? ` · about ${formatDuration((left / perMinute) * 60_000)} left` : '';
  return `applying ${event.done}/${event.total} · ${perMinute.toFixed(1)} changes/min${eta}`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
