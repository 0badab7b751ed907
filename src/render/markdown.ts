/**
 * The plan as Markdown for pull-request comments and CI job summaries: a
 * summary table, the destructive block first, one collapsible section per
 * site, safety violations, notes, and the plan's fingerprint. Stays under
 * 60,000 characters (GitHub rejects comments over 65,535) by summarising the
 * tail instead of cutting text mid-way. Every text that may hold a value from
 * the service (domains, settings, notes) is escaped for where it lands: Markdown
 * inline, HTML inside <details>, or a code fence longer than any backtick run.
 */
import type { Plan } from '../model/plan.js';
import { countOf, printable } from '../model/text.js';
import { planDigest } from '../plan/fingerprint.js';
import { type FieldLine, projectPlan, type SiteView } from './projection.js';

export const MARKDOWN_LIMIT = 60_000;
/** Room kept for the tail summary, notes and footer. */
const RESERVE = 4_000;
/** Deletes and safety violations listed in full before a count takes over. */
const MAX_LISTED = 50;

export interface MarkdownOptions {
  target?: string;
  /**
   * The apply flags that would acknowledge the plan's safety violations
   * (apply/acknowledge.ts `allFlags`): shown as the `sitesync-acknowledge:`
   * lines a reviewer adds to the pull request (docs/workflows.md).
   */
  acknowledge?: readonly string[];
  /** Defaults to MARKDOWN_LIMIT; smaller in tests. */
  limit?: number;
}

/** Markdown and HTML metacharacters shown literally; one line (a newline would end a `>` block). */
export function escapeMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/[\\`*_[\]|~]/g, (char) => `\\${char}`)
    .replace(/\r?\n/g, ' ');
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r?\n/g, ' ');
}

/** A fence no line inside can close: one backtick longer than the longest run. */
function fenceFor(body: string): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const view = projectPlan(plan);
  const limit = options.limit ?? MARKDOWN_LIMIT;
  const head: string[] = [`### sitesync plan${options.target === undefined ? '' : ` for \`${options.target}\``}`, ''];
  if (view.baseline !== undefined) head.push(escapeMarkdown(view.baseline), '');
  const { summary } = plan;
  head.push(
    '| Create | Update | Delete | Unchanged | Kept, not in config | Outside scope |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${summary.create} | ${summary.update} | ${summary.delete} | ${summary.unchanged} | ${summary.kept} | ${summary.outOfScope} |`,
    '',
  );
  if (plan.baseline !== undefined) {
    head.push(
      '| Pending | Drift | Conflict |',
      '| ---: | ---: | ---: |',
      `| ${summary.pending ?? 0} | ${summary.drift ?? 0} | ${summary.conflict ?? 0} |`,
      '',
    );
  }
  if (view.destructive.length > 0) {
    head.push(
      '> [!CAUTION]',
      `> **${countOf(view.destructive.length, 'website')} will be deleted, with the whole analytics history of each:**`,
    );
    head.push(...capped(view.destructive.map(escapeMarkdown), '> '), '');
  }
  if (view.safety.length > 0) {
    head.push('**Safety violations** (apply refuses this plan unless acknowledged):', '');
    head.push(
      ...capped(
        view.safety.map((violation) => `- ❌ ${escapeMarkdown(violation)}`),
        '',
      ),
      '',
    );
    head.push(...acknowledgeLines(options.acknowledge ?? []));
  }
  const tail: string[] = [];
  if (view.classes.length > 0) tail.push(...view.classes.map((line) => `- ${escapeMarkdown(line)}`), '');
  if (view.notes.length > 0) tail.push('**Notes**', '', ...view.notes.map((note) => `- ${escapeMarkdown(note)}`), '');
  if (view.coverage !== undefined) tail.push(escapeMarkdown(view.coverage), '');
  tail.push(`**${view.summary}**`, '', `<sub>Plan fingerprint: \`${planDigest(plan)}\`</sub>`);

  let text = `${head.join('\n')}\n`;
  const budget = limit - RESERVE - tail.join('\n').length;
  let shown = 0;
  for (const site of view.sites) {
    const section = siteSection(site);
    if (text.length + section.length > budget) break;
    text += section;
    shown += 1;
  }
  const rest = view.sites.slice(shown);
  if (rest.length > 0) text += `\n${omitted(rest)}\n`;
  return `${text}\n${tail.join('\n')}\n`;
}

/** The lines the apply on merge reads from the pull request's description, in a block to copy. */
function acknowledgeLines(flags: readonly string[]): string[] {
  if (flags.length === 0) return [];
  const lines = flags.slice(0, MAX_LISTED).map((flag) => `sitesync-acknowledge: ${printable(flag)}`);
  const more = flags.length - lines.length;
  const body = lines.join('\n');
  const fence = fenceFor(body);
  return [
    "To apply it on merge, add these lines to the pull request's description (one acknowledgement each):",
    '',
    `${fence}text`,
    body,
    fence,
    ...(more > 0 ? ['', `… and ${more} more (or raise \`limits.max_deletes\` in the configuration)`] : []),
    '',
  ];
}

/** The first MAX_LISTED lines, then one counting the rest. */
function capped(lines: string[], prefix: string): string[] {
  const shown = lines.slice(0, MAX_LISTED).map((line) => `${prefix}${line}`);
  return lines.length > MAX_LISTED ? [...shown, `${prefix}- … and ${lines.length - MAX_LISTED} more`] : shown;
}

function siteSection(site: SiteView): string {
  const lines = site.fields.map(diffLine).join('\n');
  const fence = fenceFor(lines);
  const body = site.fields.length === 0 ? '' : `\n${fence}diff\n${lines}\n${fence}\n`;
  return `<details><summary><code>${escapeHtml(site.headline)}</code></summary>\n${body}\n</details>\n\n`;
}

/** GitHub colours diff blocks by the first character; list entries stay indented under their field. */
function diffLine(field: FieldLine): string {
  const body = field.text.trimStart();
  switch (field.kind) {
    case 'set':
      return `+ ${body}`;
    case 'change':
      return `! ${body}`;
    case 'added':
      return `+   ${field.entry}`;
    case 'removed':
      return `-   ${field.entry}`;
    case 'kept':
      return `    ${field.entry}`;
    default:
      return `  ${body}`;
  }
}

function omitted(rest: SiteView[]): string {
  const count = (action: SiteView['action']): number => rest.filter((site) => site.action === action).length;
  const ignored = count('unchanged');
  const drift = ignored === 0 ? '' : `, and ${countOf(ignored, 'unchanged website')} with ignored drift`;
  return `…and ${rest.length - ignored} more changes not shown here to stay under the comment size limit (${count('create')} creates, ${count('update')} updates${drift}). Run \`sitesync plan\` or use \`--format json\` for all of them.`;
}
