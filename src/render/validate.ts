/**
 * `sitesync validate` output: every problem, then one summary line (text), or
 * one JSON document for machines. Data in, text out; problems arrive with
 * their one-line text (`file:line:column: path message`) already made by the
 * configuration layer, which owns positions.
 */
import type { ConfigProblem } from '../model/desired-state.js';
import { countOf, jsonDocument } from '../model/text.js';
import type { ProblemJson } from './error-document.js';

/** Version of the JSON output's shape; bumped on incompatible change. */
export const VALIDATE_FORMAT_VERSION = '2.0';

export interface ProblemView extends ConfigProblem {
  /** The problem as one line (formatProblem). */
  text: string;
}

export interface ValidateView {
  /** The files that were read. */
  files: string[];
  /** The problems listed (at most 100 of each kind, config/index.ts)… */
  errors: ProblemView[];
  warnings: ProblemView[];
  /** …and the number beyond them, with the line that says so ("and N more errors …"). */
  omitted: { errors: number; warnings: number; errorsLine?: string; warningsLine?: string };
  /** Present when the configuration is valid. */
  valid?: { files: string[]; websites: number; digest: string };
}

export function renderValidateText(view: ValidateView): string {
  const { omitted } = view;
  const lines = view.errors.map((problem) => problem.text);
  if (omitted.errorsLine) lines.push(omitted.errorsLine);
  lines.push(...view.warnings.map((problem) => problem.text));
  if (omitted.warningsLine) lines.push(omitted.warningsLine);
  const warnings = countOf(view.warnings.length + omitted.warnings, 'warning');
  if (view.valid) {
    lines.push(`${view.valid.files.join(', ')}: valid (${countOf(view.valid.websites, 'website')}, ${warnings})`);
  } else {
    lines.push(`invalid: ${countOf(view.errors.length + omitted.errors, 'error')}, ${warnings}`);
  }
  return `${lines.join('\n')}\n`;
}

export function renderValidateJson(view: ValidateView): string {
  return jsonDocument(validateDocument(view));
}

function validateDocument(view: ValidateView) {
  return {
    formatVersion: VALIDATE_FORMAT_VERSION,
    valid: view.valid !== undefined,
    files: view.files,
    websites: view.valid?.websites ?? 0,
    digest: view.valid?.digest ?? null,
    errors: view.errors.map(problemJson),
    warnings: view.warnings.map(problemJson),
    omittedErrors: view.omitted.errors,
    omittedWarnings: view.omitted.warnings,
  };
}

/** One target's validation (docs/config.md, Targets): each problem's text starts with `[name] `. */
export interface TargetValidateView extends ValidateView {
  name: string;
}

export function renderTargetsValidateText(views: readonly TargetValidateView[]): string {
  const parts = views.map((view) => {
    const text = renderValidateText(view);
    const lines = text.trimEnd().split('\n');
    // The summary line is the last; problems already carry the name.
    lines[lines.length - 1] = `[${view.name}] ${lines[lines.length - 1]}`;
    return lines.join('\n');
  });
  const invalid = views.filter((view) => view.valid === undefined).map((view) => view.name);
  const tail = invalid.length === 0 ? 'all valid' : `invalid: ${invalid.join(', ')}`;
  return `${parts.join('\n')}\ntargets: ${views.length}, ${tail}\n`;
}

export function renderTargetsValidateJson(views: readonly TargetValidateView[]): string {
  const document = {
    formatVersion: VALIDATE_FORMAT_VERSION,
    valid: views.every((view) => view.valid !== undefined),
    targets: views.map((view) => {
      const { formatVersion: _version, ...rest } = validateDocument(view);
      return { name: view.name, ...rest };
    }),
  };
  return jsonDocument(document);
}

/** One problem in JSON, as validate lists it (also in the `error` of a plan or apply document). */
export function problemJson(problem: ProblemView): ProblemJson {
  return {
    file: problem.source?.file ?? null,
    line: problem.source?.line ?? null,
    column: problem.source?.column ?? null,
    path: problem.path,
    code: problem.code,
    message: problem.message,
    text: problem.text,
  };
}
