/**
 * The words of apply's progress: one line per finished change (logs, pipes),
 * the live line of a terminal (done/total, rate, time left, the rate limit's
 * wait), and durations. Text only; cli/progress.ts writes them.
 */
import type { ChangeResult } from '../model/apply-result.js';
import { printable } from '../model/text.js';

/** `applied  update example.com`, `failed   create a.com: reason`; the domain and reason made printable (the service's). */
export function changeLine(result: ChangeResult): string {
  const line = `${result.outcome.padEnd(8)} ${result.action} ${result.domain}`;
  return printable(result.reason === undefined ? line : `${line}: ${result.reason}`);
}

/** What the rate limiter says about the rest of the run. */
export interface PacingView {
  /** How long until the remaining requests have started at the rate limit; absent without a limit. */
  etaMs?: number | undefined;
  /** How long the next request still waits for the rate limit. */
  waitMs?: number;
}

/**
 * `applying 37/200 · 12.5 changes/min · about 2m 10s left · waiting 43 s for the rate limit`.
 * Under a rate limit the time left is the limiter's estimate (`etaMs`), and
 * so is the rate (the changes left over that time): the first changes go out
 * in a burst and the next wait for the window, so the rate so far says 6840
 * changes/min, then 60. Without a limit, or with room left in its window, the
 * rate so far decides both.
 * Under a second left, and a rate before anything finished, are not shown.
 */
export function liveLine(event: { done: number; total: number }, elapsedMs: number, pacing: PacingView = {}): string {
  const left = event.total - event.done;
  const paced = pacing.etaMs !== undefined && pacing.etaMs >= 1_000 && left > 0;
  const soFar = elapsedMs > 0 ? (event.done * 60_000) / elapsedMs : 0;
  const perMinute = event.done === 0 ? 0 : paced ? (left * 60_000) / (pacing.etaMs ?? 1) : soFar;
  const byRate = soFar > 0 ? (left / soFar) * 60_000 : 0;
  // With room in its window the limiter says 0 s, yet requests take time: the rate so far tells (issue 38).
  const eta = left > 0 ? (paced ? (pacing.etaMs ?? 0) : byRate) : 0;
  const parts = [`applying ${event.done}/${event.total}`];
  if (perMinute > 0) parts.push(`${perMinute.toFixed(1)} changes/min`);
  if (eta >= 1_000) parts.push(`about ${formatDuration(eta)} left`);
  const wait = pacing.waitMs ?? 0;
  if (wait >= 1_000) parts.push(`waiting ${Math.round(wait / 1000)} s for the rate limit`);
  return parts.join(' · ');
}

/** The one line for every change an interrupt left unstarted (there may be hundreds), with what to do. */
export function notStartedLine(domains: readonly string[]): string {
  const shown = domains.slice(0, 3).join(', ');
  const more = domains.length > 3 ? ` and ${domains.length - 3} more` : '';
  const what = `${domains.length} change${domains.length === 1 ? '' : 's'} not started (${shown}${more})`;
  return printable(`interrupted: ${what}; run the same command again to finish them`);
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  // "0s" reads as "took no time" (issue 38): a run under half a second says so.
  if (seconds === 0) return 'under 1s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}
