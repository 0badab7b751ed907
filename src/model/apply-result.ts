/**
 * What an apply did: every change of the plan ends applied, failed or skipped,
 * with a reason a person can act on. Plain data, so it can be rendered as text
 * or JSON and written to a journal.
 */
import type { ErrorCode } from './errors.js';
import type { Action } from './plan.js';
import type { FieldName, SettingName, SettingValue } from './website.js';

export type Outcome = 'applied' | 'failed' | 'skipped';

/** The reason of a change skipped because the live site already is as planned (a re-run). */
export const ALREADY_APPLIED = 'already applied: the live state matches the plan';

export interface ChangeResult {
  action: Action;
  domain: string;
  /** The live id: known for updates and deletes, and for creates once applied. */
  id: number | null;
  outcome: Outcome;
  /** Why it failed or was skipped, or a remark on an applied change ("already gone"). */
  reason?: string;
  /** The error code of a failure, for programs; `interrupted` on a change an interrupt left unstarted. */
  code?: ErrorCode;
}

/**
 * A touched site that, read back after the apply, still differs from the
 * configuration: as data (render/apply-result.ts `divergenceText` words it:
 * "favorite: wanted true, is false", "still exists after the delete").
 */
export interface Divergence {
  domain: string;
  /** `still_exists` after a delete, `missing` after a create, or one `field` that differs. */
  kind: 'still_exists' | 'missing' | 'field';
  /** For `field`: which, the configured value and the value read back (absent for a password: never shown). */
  field?: FieldName;
  wanted?: SettingValue;
  actual?: SettingValue;
  /** Our write was answered as configured, but the read-back differs: someone else changed the site during the run. */
  otherWriter?: boolean;
}

export interface Verification {
  /** `checked`: read back and compared; `unavailable`: the read-back failed. */
  status: 'checked' | 'unavailable' | 'not_needed';
  divergences: Divergence[];
  /** Why the read-back failed. */
  error?: string;
}

export interface ApplyResult {
  /** In plan order. */
  changes: ChangeResult[];
  counts: Record<Outcome, number> & { total: number };
  /** The run was stopped (Ctrl-C): changes not started are skipped. */
  interrupted: boolean;
  verification: Verification;
  /** HTTP requests this apply sent, retries included. */
  requests: number;
  elapsedMs: number;
}

/** Skipped because the run was interrupted before the change's first request was sent (code `interrupted`). */
export function isNotStarted(result: ChangeResult): boolean {
  return result.outcome === 'skipped' && result.code === 'interrupted';
}

/** Whether the desired state was reached for everything the plan covered. */
export function succeeded(result: ApplyResult): boolean {
  return (
    result.counts.failed === 0 &&
    !result.interrupted &&
    result.verification.status !== 'unavailable' &&
    result.verification.divergences.length === 0
  );
}

export function countOutcomes(changes: readonly ChangeResult[]): ApplyResult['counts'] {
  const counts = { applied: 0, failed: 0, skipped: 0, total: changes.length };
  for (const change of changes) counts[change.outcome] += 1;
  return counts;
}

/** Why an apply wrote nothing: a safety refusal, a stale plan, a cancelled prompt, an interrupt. */
export interface ApplyRefusal {
  code: ErrorCode;
  message: string;
}

/** One readable setting that differs: `planned` is the plan's value (its `before`, or `after` for a create), `now` the live one. */
export interface SettingMove {
  field: SettingName;
  planned: SettingValue;
  now: SettingValue;
}

/**
 * A site a plan touches that moved since the plan was made (the freshness
 * check): `gone` (deleted since), `appeared` (a planned create exists now, as
 * `id`), `changed` (its settings, or only its password, moved).
 */
export interface MovedSite {
  domain: string;
  kind: 'gone' | 'appeared' | 'changed';
  id?: number;
  moves: SettingMove[];
}
