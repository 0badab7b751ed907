/**
 * ApplyResult → text: the human summary printed after every apply (as lines
 * tagged with a tone; the command paints them, colour being decided in one
 * place), the JSON form (`--format json`), and the words of apply's refusals
 * (a stale plan, a cancelled prompt). Data in, text out; no I/O.
 */
import {
  ALREADY_APPLIED,
  type ApplyRefusal,
  type ApplyResult,
  type ChangeResult,
  type Divergence,
  isNotStarted,
  type MovedSite,
  type Outcome,
} from '../model/apply-result.js';
import type { PlanSummary } from '../model/plan.js';
import { countOf, jsonDocument, listFirst, printable } from '../model/text.js';
import { CONFIG_FIELD_NAMES } from '../model/website.js';
import type { Line, Tone } from './colors.js';
import { APPLY_RESULT_FORMAT_VERSION } from './error-document.js';
import { fieldDifferenceText } from './field-text.js';
import { formatDuration, notStartedLine } from './progress.js';

export { APPLY_RESULT_FORMAT_VERSION };

/**
 * "applied 7 of 9 changes; 1 failed, 1 skipped (12 requests, 3s)", then what
 * failed, was skipped, or did not stick. Domains and reasons come from the
 * service: every line is made printable (no raw control byte reaches a terminal).
 */
export function applyResultLines(result: ApplyResult): Line[] {
  return resultLines(result).map((line) => ({ ...line, text: printable(line.text) }));
}

function resultLines(result: ApplyResult): Line[] {
  const { counts } = result;
  const took = `${countOf(result.requests, 'request')}, ${formatDuration(result.elapsedMs)}`;
  const headline = `applied ${counts.applied} of ${countOf(counts.total, 'change')}`;
  const tail = [
    counts.failed > 0 ? `${counts.failed} failed` : '',
    counts.skipped > 0 ? `${counts.skipped} skipped` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const tone: Tone = counts.failed > 0 ? 'danger' : counts.skipped > 0 ? 'update' : 'create';
  const lines: Line[] = [{ text: `${headline}${tail ? `; ${tail}` : ''} (${took})`, tone }];
  // One line for every change an interrupt left unstarted (there may be hundreds), with what to do.
  const unstarted = result.changes.filter(isNotStarted);
  if (result.interrupted) {
    const text =
      unstarted.length > 0
        ? notStartedLine(unstarted.map((change) => change.domain))
        : 'interrupted after every change had started: the read-back was skipped; run plan to see the result';
    lines.push({ text, tone: 'update' });
  }
  lines.push(...section('failed', result.changes, 'failed', 'danger'));
  // A re-run skips every change already made: one line, not one per site.
  const done = result.changes.filter((change) => change.reason === ALREADY_APPLIED).map((change) => change.domain);
  if (done.length > 0)
    lines.push({ text: `already applied (the live state matches the plan): ${listFirst(done, 5)}`, tone: 'plain' });
  const otherSkips = result.changes.filter((change) => !isNotStarted(change) && change.reason !== ALREADY_APPLIED);
  lines.push(...section('skipped', otherSkips, 'skipped', 'update'));
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
      return divergenceLines(verification.divergences);
  }
}

/** Divergences the server caused, then those another writer caused (docs/workflows.md: one writer per account). */
function divergenceLines(divergences: readonly Divergence[]): Line[] {
  const lines: Line[] = [];
  const ours = divergences.filter((d) => d.otherWriter !== true);
  const theirs = divergences.filter((d) => d.otherWriter === true);
  const item = (d: Divergence): Line => ({ text: `  ${d.domain}: ${divergenceText(d)}`, tone: 'plain' });
  if (ours.length > 0)
    lines.push({ text: 'the server did not take (read back after the apply):', tone: 'danger' }, ...ours.map(item));
  if (theirs.length > 0) {
    lines.push(
      {
        text: 'changed by someone else during this run (the service took our write, then the read-back differed; one account should have one writer):',
        tone: 'danger',
      },
      ...theirs.map(item),
    );
  }
  return lines;
}

/** "favorite: wanted true, is false", "password: not set", "still exists after the delete", "missing when read back". */
export function divergenceText(divergence: Divergence): string {
  switch (divergence.kind) {
    case 'still_exists':
      return 'still exists after the delete';
    case 'missing':
      return 'missing when read back';
    case 'field': {
      const field = divergence.field;
      if (field === undefined || field === 'password') return `${CONFIG_FIELD_NAMES.password}: not set`;
      return fieldDifferenceText(field, divergence.wanted, divergence.actual, 'wanted');
    }
  }
}

/** The result as programs read it: each divergence also worded (`detail`), as the summary shows it. */
export function resultJson(result: ApplyResult): Record<string, unknown> {
  const divergences = result.verification.divergences.map((d) => ({ ...d, detail: divergenceText(d) }));
  return { ...result, verification: { ...result.verification, divergences } };
}

/**
 * `apply --format json`: one document per run with the plan (the plan JSON of
 * `plan --format json`), then the result, or the refusal, or neither (nothing
 * to change); `ok` so scripts need not rely on the exit code alone.
 */
export function renderApplyJson(input: ApplyJsonInput): string {
  return jsonDocument(applyJson(input));
}

export interface ApplyJsonInput {
  plan: Record<string, unknown>;
  ok: boolean;
  result?: ApplyResult | undefined;
  refusal?: ApplyRefusal | undefined;
}

/** The document `renderApplyJson` writes, as a value (an element of the document over targets). */
export function applyJson(input: ApplyJsonInput): Record<string, unknown> {
  return {
    formatVersion: APPLY_RESULT_FORMAT_VERSION,
    ok: input.ok,
    plan: input.plan,
    result: input.result === undefined ? null : resultJson(input.result),
    refusal: input.refusal ?? null,
    error: null,
  };
}

/** The refusal of a stale plan: each site that moved, and what to run instead. */
export function staleRefusalText(what: string, moved: readonly MovedSite[], rerun: string): string {
  const lines = [`${what} is stale: ${moved.length} site${moved.length === 1 ? '' : 's'} moved since it was made:`];
  for (const site of moved) lines.push(`  ${site.domain}: ${howMovedText(site)}`);
  lines.push(`Nothing was applied. Run \`${rerun}\` again and review the new plan.`);
  return lines.map(printable).join('\n');
}

/** The answer at apply's prompt that was not `yes`: `eof` is Ctrl-D, `interrupted` Ctrl-C or SIGTERM. */
/** The confirmation question: it carries the plan in one line, since stdout (with the plan) may be redirected. */
export function confirmQuestion(target: string, summary: Pick<PlanSummary, 'create' | 'update' | 'delete'>): string {
  return `Apply to ${target}: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete? Only "yes" is accepted: `;
}

export function cancelledText(answer: 'no' | 'eof' | 'interrupted'): string {
  const why = { no: '', eof: ' (end of input)', interrupted: ' (interrupted)' }[answer];
  return `apply cancelled${why}: nothing was changed`;
}

/** `deleted since the plan was made`, `changed since the plan was made (email: was false, now true)`, ... */
export function howMovedText(site: MovedSite): string {
  if (site.kind === 'gone') return 'deleted since the plan was made';
  if (site.kind === 'appeared') {
    const moves = movesText(site, 'planned');
    return `exists now (id ${site.id}), though the plan creates it${moves ? `, and differs from the plan (${moves})` : ''}`;
  }
  return `changed since the plan was made (${movesText(site, 'was') || 'password'})`;
}

function movesText(site: MovedSite, wording: 'planned' | 'was'): string {
  return site.moves.map((move) => fieldDifferenceText(move.field, move.planned, move.now, wording)).join('; ');
}

/** A value of a re-derivation difference, short: `true`, `"public"`, `(absent)`. */
function differenceValue(value: unknown): string {
  if (value === undefined || value === null) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * The refusal of a saved plan whose content is not what the configuration and
 * its recorded live state give: each site and field, the file's value against
 * the re-derived one (the first 10, then a count).
 */
export function rederivedRefusalText(
  planFile: string,
  differences: readonly { domain: string | undefined; part: string; inFile: unknown; derived: unknown }[],
): string {
  const lines = [
    `${planFile} does not match the plan that its configuration and recorded live state give (the file was edited): nothing was applied`,
  ];
  for (const difference of differences.slice(0, 10)) {
    const where = difference.domain === undefined ? difference.part : `${difference.domain}: ${difference.part}`;
    lines.push(
      `  ${where}: the file says ${differenceValue(difference.inFile)}, the configuration gives ${differenceValue(difference.derived)}`,
    );
  }
  if (differences.length > 10) lines.push(`  ... and ${differences.length - 10} more`);
  lines.push('Make the plan again (sitesync plan --out) and review it.');
  return lines.map(printable).join('\n');
}
