/**
 * `sitesync history DOMAIN` for people and programs: each commit that changed
 * the website's desired settings, newest first, with the applies that carried
 * it. Every text from the repository (authors, subjects) and the journals is
 * shown through `printable` (human) or JSON escapes. Data in, text out.
 */
import { jsonDocument, printable } from '../model/text.js';

/** `sitesync history --format json`: 1.0 (docs/plan-format.md, "History"). */
export const HISTORY_FORMAT_VERSION = '1.0';

export interface HistoryView {
  domain: string;
  files: string[];
  appliedTag?: { name: string; commit: string };
  truncated: boolean;
  entries: {
    commit: string;
    author: string;
    date: string;
    subject: string;
    desired: Record<string, unknown> | null;
    inAppliedTag: boolean;
    applies: { time: string; action: string; url?: string; target?: string; commit?: string; journal: string }[];
  }[];
}

export function renderHistoryJson(history: HistoryView): string {
  return jsonDocument({ formatVersion: HISTORY_FORMAT_VERSION, ...history });
}

export function renderHistoryText(history: HistoryView): string {
  const lines = [`History of ${history.domain} in ${history.files.join(', ')}, newest first:`];
  if (history.entries.length === 0) lines.push('', 'No commit changed its settings (is the domain configured here?).');
  for (const entry of history.entries) {
    lines.push('', `${entry.commit.slice(0, 7)} ${entry.date.slice(0, 10)} ${entry.author}: ${entry.subject}`);
    lines.push(`    ${entry.desired === null ? 'removed from the configuration' : settingsText(entry.desired)}`);
    const tag = history.appliedTag;
    if (tag !== undefined && entry.inAppliedTag) lines.push(`    applied: in ${tag.name} (${tag.commit.slice(0, 12)})`);
    for (const apply of entry.applies) {
      const where = [apply.target, apply.url].filter(Boolean).join(' ');
      lines.push(`    applied ${apply.time} (${apply.action}${where === '' ? '' : `, ${where}`}; ${apply.journal})`);
    }
    if (!entry.inAppliedTag && entry.applies.length === 0) lines.push('    not applied yet');
  }
  if (history.truncated) lines.push('', 'Older commits were not read (the newest 500 were).');
  return `${lines.map(printable).join('\n')}\n`;
}

function settingsText(desired: Record<string, unknown>): string {
  return Object.entries(desired)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? `[${value.join(', ')}]` : String(value)}`)
    .join(', ');
}
