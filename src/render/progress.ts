/**
 * The words of apply's progress: one line per finished change (logs, pipes),
 * the live line of a terminal (done/total, rate, time left), and durations.
 * Text only; cli/progress.ts writes them.
 */
import type { ChangeResult } from '../model/apply-result.js';
import { printable } from '../model/text.js';

/** `applied  update example.com`, `failed   create a.com: reason`; the domain and reason made printable (the service's). */
export function changeLine(result: ChangeResult): string {
  const line = `${result.outcome.padEnd(8)} ${result.action} ${result.domain}`;
  return printable(result.reason === undefined ? line : `${line}: ${result.reason}`);
}

/** `applying 37/200 · 12.5 changes/min · about 2m 10s left`. */
export function liveLine(event: { done: number; total: number }, elapsedMs: number): string {
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
