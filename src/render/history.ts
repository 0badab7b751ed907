/**
 * `sitesync history DOMAIN` for people and programs: each commit that changed
 * the website's desired settings, newest first, with the applies that carried
 * it. Every text from the repository (authors, subjects) and the journals is
 * shown through `printable` (human) or JSON escapes. Data in, text out.
 */
import { shortCommit } from '../model/attribution.js';
import type { History } from '../model/history.js';
import { jsonDocument, printable } from '../model/text.js';

/** `sitesync history --format json`: 1.0 (docs/plan-format.md, "History"). */
export const HISTORY_FORMAT_VERSION = '1.0';

export function renderHistoryJson(history: History): string {
  return jsonDocument({ formatVersion: HISTORY_FORMAT_VERSION, ...history });
}

export function renderHistoryText(history: History): string {
  const lines = [`History of ${history.domain} in ${history.files.join(', ')}, newest first:`];
  if (history.entries.length === 0) lines.push('', 'No commit changed its settings (is the domain configured here?).');
  for (const entry of history.entries) {
    lines.push('', `${shortCommit(entry.commit)} ${entry.date.slice(0, 10)} ${entry.author}: ${entry.subject}`);
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
