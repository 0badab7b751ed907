/**
 * One report over several targets (docs/plan-format.md, Targets): each
 * target's part is the single-target rendering, unchanged, under the
 * target's name; a failed target is its name and its error. Human: grouped
 * by target. Markdown: a summary table, then one section per target. JSON:
 * `{formatVersion: "2.0", targets: [...]}`, each element the single-target
 * plan document plus `name` (or `name`, `target` and `error`, the error
 * object of the error documents).
 */
import type { Attribution } from '../model/attribution.js';
import { needsAcknowledgement, type Plan } from '../model/plan.js';
import { jsonDocument } from '../model/text.js';
import type { SiteExplanation } from '../plan/explain.js';
import { type Line, paint } from './colors.js';
import type { ErrorJson } from './error-document.js';
import { renderHuman } from './human.js';
import { planDocument } from './json.js';
import { escapeMarkdown, MARKDOWN_LIMIT, renderMarkdown } from './markdown.js';

/**
 * The format version of a document with a `targets` array, never shared with
 * the plan document's (1.2, coverage). 1.3: the array; 1.4: a failed
 * target's `error` is the `{code, message}` object of the error documents
 * (it was the message alone).
 */
export const TARGETS_FORMAT_VERSION = '2.0';

/** One target's part of the report. */
export interface TargetReport {
  name: string;
  /** The target's URL. */
  target: string;
  plan?: Plan;
  explain?: SiteExplanation[];
  /** Why the target has no plan (unreachable, wrong key, invalid configuration…). */
  error?: ErrorJson;
  /** The target's own exit code. */
  code: number;
  /** The apply flags that would acknowledge its safety violations (Markdown's `sitesync-acknowledge:` lines). */
  acknowledge?: string[];
  /** The commit of each change. */
  attribution?: Attribution;
}

/** `ok`, `changes`, `drift`, `unsafe` or `failed` (most severe first, as the exit code): the summary table's status column. */
export function targetStatus(report: TargetReport): string {
  if (report.plan === undefined) return 'failed';
  if (needsAcknowledgement(report.plan)) return 'unsafe';
  if ((driftCount(report.plan) ?? 0) > 0) return 'drift';
  return report.plan.changes.length > 0 ? 'changes' : 'ok';
}

/**
 * Changes classed drift or conflict against the git baseline (docs/plan-format.md,
 * Baseline); undefined for a plan without a baseline, which cannot tell drift from pending.
 */
export function driftCount(plan: Plan): number | undefined {
  const { drift, conflict } = plan.summary;
  if (drift === undefined && conflict === undefined) return undefined;
  return (drift ?? 0) + (conflict ?? 0);
}

export function renderTargetsHuman(reports: readonly TargetReport[], options: { color: boolean }): string {
  const parts = reports.map((report) => {
    const head: Line[] = [{ text: `=== target ${report.name} (${report.target})`, tone: 'heading' }];
    const body =
      report.plan === undefined
        ? paint([{ text: `error: ${report.error?.message ?? 'failed'}`, tone: 'danger' }], options.color)
        : renderHuman(report.plan, {
            color: options.color,
            target: report.target,
            ...(report.explain && { explain: report.explain }),
            ...(report.attribution && { attribution: report.attribution }),
          });
    return `${paint(head, options.color)}${body}`;
  });
  return `${parts.join('\n')}\n${summaryLine(reports)}\n`;
}

function summaryLine(reports: readonly TargetReport[]): string {
  const failed = reports.filter((report) => report.plan === undefined).map((report) => report.name);
  const planned = reports.length - failed.length;
  const tail = failed.length === 0 ? '' : `, ${failed.length} failed (${failed.join(', ')})`;
  const drifted = reports.filter((report) => report.plan && (driftCount(report.plan) ?? 0) > 0);
  const drift = drifted.length === 0 ? '' : `; drift in ${drifted.map((report) => report.name).join(', ')}`;
  return `Targets: ${reports.length}; ${planned} planned${tail}${drift}.`;
}

export function renderTargetsMarkdown(reports: readonly TargetReport[]): string {
  const lines = [
    `### sitesync plan: ${reports.length} targets`,
    '',
    '| Target | Creates | Updates | Deletes | Drift | Status |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const report of reports) {
    const s = report.plan?.summary;
    const drift = report.plan && driftCount(report.plan);
    const cells = s === undefined ? ['–', '–', '–', '–'] : [s.create, s.update, s.delete, drift ?? '–'];
    lines.push(`| ${escapeMarkdown(report.name)} | ${cells.join(' | ')} | ${targetStatus(report)} |`);
  }
  const head = `${lines.join('\n')}\n`;
  // Each section gets an equal share of the comment limit.
  const limit = Math.floor((MARKDOWN_LIMIT - head.length) / Math.max(1, reports.length)) - 200;
  const sections = reports.map((report) => {
    const title = `## ${escapeMarkdown(report.name)}\n\n`;
    if (report.plan === undefined) return `${title}**Failed:** ${escapeMarkdown(report.error?.message ?? 'failed')}\n`;
    const acknowledge = report.acknowledge ?? [];
    const attribution = report.attribution === undefined ? {} : { attribution: report.attribution };
    return `${title}${renderMarkdown(report.plan, { target: report.target, limit, acknowledge, ...attribution })}`;
  });
  return [head, ...sections].join('\n');
}

export function targetsDocument(reports: readonly TargetReport[]): Record<string, unknown> {
  return {
    formatVersion: TARGETS_FORMAT_VERSION,
    targets: reports.map((report) =>
      report.plan === undefined
        ? { name: report.name, target: report.target, error: report.error ?? { code: 'internal', message: 'failed' } }
        : {
            name: report.name,
            ...planDocument(report.plan, {
              target: report.target,
              ...(report.explain && { explain: report.explain }),
              ...(report.attribution && { attribution: report.attribution }),
            }),
          },
    ),
  };
}

export function renderTargetsJson(reports: readonly TargetReport[]): string {
  return jsonDocument(targetsDocument(reports));
}
