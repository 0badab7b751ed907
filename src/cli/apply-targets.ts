/**
 * The report of `apply` over targets: each target's own output under its
 * name (human), or one document holding each target's apply document
 * (JSON), built from the values each target's run kept.
 */
import { jsonDocument } from '../model/text.js';
import { APPLY_RESULT_FORMAT_VERSION } from '../render/apply-result.js';
import { applyErrorJson } from '../render/error-document.js';
import type { TargetOutcome } from './target-runs.js';

export function applyTargetsHuman(outcomes: readonly TargetOutcome<unknown>[]): string {
  const parts = outcomes.map(({ target, stdout, error }) => {
    const body = stdout === '' || stdout.endsWith('\n') ? stdout : `${stdout}\n`;
    return `=== target ${target.name} (${target.url})\n${body}${error === undefined ? '' : `error: ${error}\n`}`;
  });
  const failed = outcomes.filter((outcome) => outcome.code !== 0).map((outcome) => outcome.target.name);
  const tail = failed.length === 0 ? 'all done' : `not done: ${failed.join(', ')}`;
  return `${parts.join('\n')}\nTargets: ${outcomes.length}; ${tail}.\n`;
}

/**
 * `{formatVersion: "3.0", ok, targets}` (schemas/apply-targets.schema.json): each
 * element is the target's own apply document (its refusal or error
 * included) plus `name` and `exitCode`.
 */
export function applyTargetsJson(outcomes: readonly TargetOutcome<Record<string, unknown> | undefined>[]): string {
  const targets = outcomes.map(({ target, value, error, code }) => {
    // Every target's run writes its document, a failure too; this is only a guard.
    const document = value ?? applyErrorJson({ code: 'internal', message: error ?? 'failed' });
    return { name: target.name, ...document, exitCode: code };
  });
  const ok = outcomes.every((outcome) => outcome.code === 0);
  return jsonDocument({ formatVersion: APPLY_RESULT_FORMAT_VERSION, ok, targets });
}
