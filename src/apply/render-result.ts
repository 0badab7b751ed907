/**
 * ApplyResult → text: the human summary printed after every apply (as lines
 * tagged with a tone; the command paints them, colour being decided in one
 * place), and the JSON form (`--format json`). Data in, data out; no I/O.
 */
import type { ErrorCode } from '../model/errors.js';
import type { Line, Tone } from '../render/colors.js';
import { formatDuration } from './progress.js';
import type { ApplyResult, ChangeResult, Outcome } from './result.js';

/** 2: the plan, the result and the refusal in one document (1 had the result's keys at the top). */
export const APPLY_RESULT_FORMAT_VERSION = 2;

/** "applied 7 of 9 changes; 1 failed, 1 skipped (12 requests, 3s)", then what failed, was skipped, or did not stick. */
export function applyResultLines(result: ApplyResult): Line[] {
  const { counts } = result;
  const took = `${result.requests} requests, ${formatDuration(result.elapsedMs)}`;
  const headline = `applied ${counts.applied} of ${counts.total} change${counts.total === 1 ? '' : 's'}`;
  const tail = [
    counts.failed > 0 ? `${counts.failed} failed` : '',
    counts.skipped > 0 ? `${counts.skipped} skipped` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const tone: Tone = counts.failed > 0 ? 'danger' : counts.skipped > 0 ? 'update' : 'create';
  const lines: Line[] = [{ text: `${headline}${tail ? `; ${tail}` : ''} (${took})`, tone }];
  if (result.interrupted) {
    lines.push({ text: 'interrupted: changes not started were skipped; re-run to converge', tone: 'update' });
  }
  lines.push(...section('failed', result.changes, 'failed', 'danger'));
  lines.push(...section('skipped', result.changes, 'skipped', 'update'));
  lines.push(...verificationLines(result));
  return lines;
}

function section(title: string, changes: readonly ChangeResult[], outcome: Outcome, tone: Tone): Line[] {
  const matching = changes.filter((change) => change.outcome === outcome);
  if (matching.length === 0) return [];
  const entries = matching.map((change) => ({
    text: `  ${change.domain} (${change.action}): ${change.reason ?? outcome}`,
    tone: 'plain' as const,
  }));
  return [{ text: `${title}:`, tone }, ...entries];
}

function verificationLines(result: ApplyResult): Line[] {
  const { verification } = result;
  switch (verification.status) {
    case 'not_needed':
      return [];
    case 'unavailable':
      return [
        { text: `not verified: ${verification.error ?? 'the read-back failed'}; run plan to check`, tone: 'danger' },
      ];
    case 'checked':
      if (verification.divergences.length === 0) {
        return [{ text: 'read back: every applied change is in place', tone: 'muted' }];
      }
      return [
        { text: 'the server did not take (read back after the apply):', tone: 'danger' },
        ...verification.divergences.map((d) => ({ text: `  ${d.domain}: ${d.detail}`, tone: 'plain' as const })),
      ];
  }
}

/** Why an apply wrote nothing: a safety refusal, a stale plan, a cancelled prompt, an interrupt. */
export interface ApplyRefusal {
  code: ErrorCode;
  message: string;
}

/**
 * `apply --format json`: one document per run with the plan (the plan JSON of
 * `plan --format json`), then the result, or the refusal, or neither (nothing
 * to change); `ok` so scripts need not rely on the exit code alone.
 */
export function renderApplyJson(input: {
  plan: Record<string, unknown>;
  ok: boolean;
  result?: ApplyResult | undefined;
  refusal?: ApplyRefusal | undefined;
}): string {
  const document = {
    formatVersion: APPLY_RESULT_FORMAT_VERSION,
    ok: input.ok,
    plan: input.plan,
    result: input.result ?? null,
    refusal: input.refusal ?? null,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
