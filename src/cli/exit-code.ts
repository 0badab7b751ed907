/**
 * Every command's exit code, decided in one place from what the command
 * ended with (docs/exit-codes.md): 0 done, 1 an error or an unmet goal, 2 a
 * plan with changes under --detailed-exitcode (or an export that could not
 * hold every website as it is live), 3 an unsafe plan, 4 a plan
 * with drift or a conflict (classified against a baseline) under
 * --detailed-exitcode, 130 an interruption (143 by SIGTERM, 141 by a closed output).
 */
import { type ApplyResult, succeeded } from '../model/apply-result.js';
import { type ErrorCode, isSitesyncError, SitesyncError } from '../model/errors.js';
import { needsAcknowledgement, type Plan } from '../model/plan.js';
import { type ErrorJson, errorJsonOf } from '../render/error-document.js';

/** Exit codes, documented in docs/exit-codes.md. */
export const EXIT = {
  ok: 0,
  error: 1,
  changes: 2,
  unsafe: 3,
  /** A plan with drift or a conflict, classified against a git baseline (--detailed-exitcode). */
  drift: 4,
  /** Ctrl-C: in-flight requests finished, the rest skipped. */
  interrupted: 130,
  /** The same interruption by SIGTERM (128 + 15, as a shell reports it): a CI job cancelled, `docker stop`. */
  terminated: 143,
  /** The same interruption because the reader of stdout or stderr went away (`| head`): 128 + SIGPIPE (13). */
  outputClosed: 141,
} as const;

export type CommandOutcome =
  /** Finished what it was asked (schema, export, serve, an apply with nothing to do). */
  | { kind: 'done' }
  | { kind: 'validated'; valid: boolean }
  /** export wrote its file; `incomplete`: some website is not held as it is live (commented out, or a field unmanaged). */
  | { kind: 'exported'; incomplete: boolean }
  | { kind: 'planned'; plan: Plan; detailedExitcode: boolean }
  | { kind: 'applied'; result: ApplyResult }
  /** Wrote nothing on purpose: an unsafe plan, a prompt not answered `yes`, an interrupt before the first change. */
  | { kind: 'refused'; code: ErrorCode }
  /** A thrown error; `aborted`: it is the abort reason of the run's signal (Ctrl-C). */
  | { kind: 'failed'; error: unknown; aborted?: boolean }
  /** commander refused the command line (or printed help: `helpShown`). */
  | { kind: 'usage'; helpShown: boolean };

export function exitCodeFor(outcome: CommandOutcome): number {
  switch (outcome.kind) {
    case 'done':
      return EXIT.ok;
    case 'validated':
      return outcome.valid ? EXIT.ok : EXIT.error;
    case 'exported':
      return outcome.incomplete ? EXIT.changes : EXIT.ok;
    case 'planned':
      // Apply would refuse it until acknowledged: a safety rule, or an error policy.
      if (needsAcknowledgement(outcome.plan)) return EXIT.unsafe;
      if (!outcome.detailedExitcode) return EXIT.ok;
      if (drifted(outcome.plan)) return EXIT.drift;
      return outcome.plan.changes.length > 0 ? EXIT.changes : EXIT.ok;
    case 'applied':
      if (outcome.result.interrupted) return EXIT.interrupted;
      return succeeded(outcome.result) ? EXIT.ok : EXIT.error;
    case 'refused':
      return codeExit(outcome.code);
    case 'failed':
      if (isSitesyncError(outcome.error)) return codeExit(outcome.error.code);
      return outcome.aborted === true ? EXIT.interrupted : EXIT.error;
    case 'usage':
      return outcome.helpShown ? EXIT.ok : EXIT.error;
  }
}

/** Drift or a conflict: only a plan classified against a baseline (or with --unlisted-is-drift) has them. */
function drifted(plan: Plan): boolean {
  return (plan.summary.drift ?? 0) > 0 || (plan.summary.conflict ?? 0) > 0;
}

function codeExit(code: ErrorCode): number {
  if (code === 'interrupted') return EXIT.interrupted;
  return code === 'unsafe_plan' ? EXIT.unsafe : EXIT.error;
}

/**
 * Exit codes from most to least severe, for a run over several targets: an
 * interruption, an error, an unsafe plan, drift, changes, nothing. A code not
 * listed ranks as an error.
 */
export const SEVERITY: readonly number[] = [
  EXIT.interrupted,
  EXIT.error,
  EXIT.unsafe,
  EXIT.drift,
  EXIT.changes,
  EXIT.ok,
];

/** The most severe of `codes` (0 for none). */
export function mostSevere(codes: readonly number[]): number {
  const rank = (code: number) => {
    const index = SEVERITY.indexOf(code);
    return index === -1 ? SEVERITY.indexOf(EXIT.error) : index;
  };
  return codes.reduce((worst, code) => (rank(code) < rank(worst) ? code : worst), EXIT.ok as number);
}

/** An error that ended one target's run, as its report holds it: exit code, one-line message, JSON error. */
export function failureOf(error: unknown, aborted: boolean): { code: number; message: string; errorJson: ErrorJson } {
  const message = isSitesyncError(error) ? error.message : error instanceof Error ? error.message : String(error);
  return { code: exitCodeFor({ kind: 'failed', error, aborted }), message, errorJson: errorJsonOf(error, aborted) };
}

/** `plan --exit-codes STYLE` (docs/exit-codes.md, "Terraform-style scripts"). */
export const EXIT_CODE_STYLES = ['sitesync', 'terraform'] as const;
export type ExitCodeStyle = (typeof EXIT_CODE_STYLES)[number];

/** --exit-codes, else SITESYNC_EXIT_CODES, else `sitesync`; another value is a usage error. */
export function exitCodeStyle(value: string | undefined): ExitCodeStyle {
  if (value === undefined || value === '') return 'sitesync';
  const style = EXIT_CODE_STYLES.find((each) => each === value);
  if (style !== undefined) return style;
  throw new SitesyncError(
    'usage',
    `SITESYNC_EXIT_CODES ${JSON.stringify(value)}: not one of ${EXIT_CODE_STYLES.join(', ')}`,
  );
}

/**
 * A plan's code as `terraform plan` would give it, for scripts written for
 * its 0/1/2: with --detailed-exitcode, 2 for changes of any kind (drift, a
 * conflict, an unsafe plan: JSON `hasDrift` and `safe` still tell), without
 * it 0 for every plan made. 1 and 130 stay.
 */
export function terraformPlanCode(code: number, detailedExitcode: boolean): number {
  if (code !== EXIT.changes && code !== EXIT.drift && code !== EXIT.unsafe) return code;
  return detailedExitcode ? EXIT.changes : EXIT.ok;
}
