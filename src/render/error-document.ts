/**
 * The JSON document of a `plan --format json` or `apply --format json` that
 * failed: a CI parser reads one document on stdout in every case, so a config
 * error, a network error, a usage error or a bug is `{formatVersion, error:
 * {code, message}}` in the command's own format (docs/plan-format.md,
 * docs/apply.md; schemas/plan.schema.json, schemas/apply.schema.json). Small
 * on purpose: main.ts loads it for command-line errors before any command.
 */
import { type ErrorCode, isSitesyncError } from '../model/errors.js';
import { jsonDocument } from '../model/text.js';

/**
 * `plan --format json`, a string "MAJOR.MINOR" (docs/plan-format.md, "formatVersion"):
 * MINOR for optional keys added, MAJOR for a key removed or changed.
 * 1.1: optional `baseline`, `hasDrift`, `class` on changes and fields, class counts in `summary`, note `unlisted_drift`.
 * 1.2: optional `coverage`; note `ignore_expired` with `field`, `until` and `reason`.
 * 1.3: note `password_kept`.
 * 2.0: the version is a string (a number cannot say 1.10); optional `baseline.fetchedFrom`, `insteadOf`, `noConfiguration`.
 */
export const PLAN_FORMAT_VERSION = '2.1';
/**
 * `apply --format json`. 2: the plan, the result and the refusal in one document (1 had the result's keys at the top).
 * 3.0: the version is a string, the plan inside is a 2.0 plan document.
 */
export const APPLY_RESULT_FORMAT_VERSION = '3.0';

/** A configuration problem as `validate --format json` shows it. */
export interface ProblemJson {
  file: string | null;
  line: number | null;
  column: number | null;
  path: string;
  code: string;
  message: string;
  text: string;
}

export interface ErrorJson {
  /** `SitesyncError` codes (src/model/errors.ts), or `internal` for a bug. */
  code: ErrorCode | 'internal';
  message: string;
  /** For `config`: every problem of the configuration, as validate lists them. */
  problems?: ProblemJson[];
}

/** What went wrong, for programs; never a stack trace (that goes to stderr, for a bug only). */
export function errorJsonOf(error: unknown, aborted: boolean): ErrorJson {
  if (isSitesyncError(error)) {
    const problems = error.details?.problems;
    return Array.isArray(problems)
      ? { code: error.code, message: error.message, problems: problems as ProblemJson[] }
      : { code: error.code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return aborted ? { code: 'interrupted', message: `interrupted (${message})` } : { code: 'internal', message };
}

export function renderPlanError(error: ErrorJson): string {
  return jsonDocument({ formatVersion: PLAN_FORMAT_VERSION, error });
}

/** `plan` is the plan document when the failure came after planning, else null. */
export function renderApplyError(error: ErrorJson, plan: Record<string, unknown> | null = null): string {
  return jsonDocument(applyErrorJson(error, plan));
}

/** The document `renderApplyError` writes, as a value. */
export function applyErrorJson(error: ErrorJson, plan: Record<string, unknown> | null = null): Record<string, unknown> {
  return { formatVersion: APPLY_RESULT_FORMAT_VERSION, ok: false, plan, result: null, refusal: null, error };
}
