/**
 * One projection of a plan into readable pieces, shared by the human and the
 * Markdown renderers so both say the same thing: a headline per site, one line
 * per field (`privacy: private → public`), list fields as line diffs, write-only
 * values as `(write-only)`, the destructive changes called out with what they
 * destroy, notes, safety violations and the summary line. Pure; no colour.
 */
import { diffArrays } from 'diff';
import type { Action, Change, FieldChange, IgnoredDrift, IgnoredOnlySite, Note, Plan } from '../model/plan.js';
import { countOf, listFirst, printable } from '../model/text.js';
import { CONFIG_FIELD_NAMES, FIELDS, type SettingName, type SettingValue } from '../model/website.js';
import { fieldDifferenceText } from './field-text.js';
import {
  baselineText,
  classCountsText,
  classLines,
  classTag,
  coverageText,
  noteText,
  violationText,
} from './plan-text.js';

export type LineKind = 'set' | 'change' | 'added' | 'removed' | 'kept' | 'write-only' | 'ignored';

export interface FieldLine {
  kind: LineKind;
  /** Indented, uncoloured text. */
  text: string;
  /** For a list entry line: the entry alone. */
  entry?: string;
}

export interface SiteView {
  /** `unchanged`: a site whose only drift is in ignore_changes fields (shown, not a change). */
  action: Exclude<Action, 'delete'> | 'unchanged';
  domain: string;
  headline: string;
  fields: FieldLine[];
}

export interface PlanView {
  /** Which git baseline the classes ([pending], [drift], [conflict]) are relative to. */
  baseline?: string;
  /** One loud line per delete: what it destroys. Deletes have no other section. */
  destructive: string[];
  /** Creates and updates, in plan order, then unchanged sites with ignored drift. */
  sites: SiteView[];
  safety: string[];
  /** With a baseline: the sites of each class (drift, conflict, pending), one line each. */
  classes: string[];
  notes: string[];
  /** Absent for a plan saved by an older sitesync. */
  coverage?: string;
  summary: string;
}

const INDENT = '    ';

/** Every string the renderers print: server values may hold ESC and other control bytes. */
export function projectPlan(plan: Plan): PlanView {
  const view = rawView(plan);
  const fields = (line: FieldLine): FieldLine => ({
    ...line,
    text: printable(line.text),
    ...(line.entry === undefined ? {} : { entry: printable(line.entry) }),
  });
  return {
    ...(view.baseline === undefined ? {} : { baseline: printable(view.baseline) }),
    destructive: view.destructive.map(printable),
    sites: view.sites.map((site) => ({
      ...site,
      domain: printable(site.domain),
      headline: printable(site.headline),
      fields: site.fields.map(fields),
    })),
    safety: view.safety.map(printable),
    classes: view.classes.map(printable),
    notes: view.notes.map(printable),
    ...(view.coverage === undefined ? {} : { coverage: printable(view.coverage) }),
    summary: printable(view.summary),
  };
}

function rawView(plan: Plan): PlanView {
  return {
    ...(plan.baseline === undefined ? {} : { baseline: baselineText(plan.baseline) }),
    destructive: plan.changes.flatMap((change) => (change.action === 'delete' ? [deleteWarning(change)] : [])),
    sites: [
      ...plan.changes.flatMap((change) => (change.action === 'delete' ? [] : [siteView(change)])),
      ...(plan.ignoredOnly ?? []).map(ignoredOnlyView),
    ],
    safety: plan.safety.map((violation) => `${violation.rule}: ${violationText(violation)}`),
    classes: classLines(plan.changes),
    notes: plan.notes.map(noteLine),
    ...(plan.coverage === undefined ? {} : { coverage: coverageText(plan.coverage) }),
    summary: summaryLine(plan),
  };
}

function deleteWarning(change: Extract<Change, { action: 'delete' }>): string {
  const since = change.createdAt === undefined ? '' : ` (tracked since ${change.createdAt.slice(0, 10)})`;
  return `- DELETE ${change.domain} (id ${change.id}${storedAs(change)})${classTag(change.class)}: its whole analytics history is lost${since}`;
}

/** `, stored as "A.example."`: the record's own spelling, when the canonical domain is not it (escaped with the rest of the line). */
function storedAs(change: { stored?: string }): string {
  return change.stored === undefined ? '' : `, stored as "${change.stored}"`;
}

function siteView(change: Exclude<Change, { action: 'delete' }>): SiteView {
  switch (change.action) {
    case 'create':
      return {
        action: 'create',
        domain: change.domain,
        headline: `+ ${change.domain} will be created${classTag(change.class)}`,
        fields: change.fields.map(createLine),
      };
    case 'update':
      return {
        action: 'update',
        domain: change.domain,
        headline: `~ ${change.domain} (id ${change.id}${storedAs(change)}) will be updated${classTag(change.class)}`,
        fields: [...change.fields.flatMap(updateLines), ...change.ignored.map(ignoredLine)],
      };
  }
}

function ignoredOnlyView(site: IgnoredOnlySite): SiteView {
  return {
    action: 'unchanged',
    domain: site.domain,
    headline: `= ${site.domain} (id ${site.id}) unchanged: drift only in ignore_changes fields`,
    fields: site.fields.map(ignoredLine),
  };
}

const nameOf = (field: FieldChange['field']): string => CONFIG_FIELD_NAMES[field];

function show(field: SettingName, value: SettingValue | undefined): string {
  return FIELDS[field].formatValue(value);
}

function createLine(field: FieldChange): FieldLine {
  if (field.field === 'password') return { kind: 'write-only', text: `${INDENT}password: (write-only)` };
  const value = show(field.field, field.after);
  return field.writeOnly
    ? { kind: 'write-only', text: `${INDENT}${nameOf(field.field)}: ${value} (write-only)` }
    : { kind: 'set', text: `${INDENT}${nameOf(field.field)}: ${value}` };
}

function updateLines(field: FieldChange): FieldLine[] {
  const tag = classTag(field.class);
  if (field.field === 'password')
    return [{ kind: 'write-only', text: `${INDENT}password: (write-only) will be sent${tag}` }];
  if (field.writeOnly) {
    return [
      {
        kind: 'write-only',
        text: `${INDENT}${nameOf(field.field)}: ${show(field.field, field.after)} (write-only, re-sent)${tag}`,
      },
    ];
  }
  if (Array.isArray(field.before) && Array.isArray(field.after))
    return listLines(nameOf(field.field), field.before, field.after, tag);
  return [
    {
      kind: 'change',
      text: `${INDENT}${fieldDifferenceText(field.field, field.before, field.after, 'change')}${tag}`,
    },
  ];
}

/** A list field as a line diff: removed entries, added entries, unchanged ones for context. */
function listLines(name: string, before: string[], after: string[], tag: string): FieldLine[] {
  const lines: FieldLine[] = [{ kind: 'change', text: `${INDENT}${name}:${tag}` }];
  for (const part of diffArrays(before, after)) {
    const kind: LineKind = part.added ? 'added' : part.removed ? 'removed' : 'kept';
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const entry of part.value) lines.push({ kind, text: `${INDENT}  ${mark} ${entry}`, entry });
  }
  return lines;
}

function ignoredLine(drift: IgnoredDrift): FieldLine {
  return {
    kind: 'ignored',
    text: `${INDENT}${fieldDifferenceText(drift.field, drift.before, drift.after, 'change')} (ignored: ignore_changes)`,
  };
}

/** Notes that a user acts on name their domains (a few); counts alone for the rest. */
const NOTE_DOMAINS_SHOWN = 5;
function noteLine(note: Note): string {
  const text = noteText(note);
  if (note.kind === 'out_of_scope' || note.kind === 'filtered' || note.kind === 'duplicate_domain') return text;
  if (note.domains.length === 0) return text;
  return `${text} (${listFirst(note.domains, NOTE_DOMAINS_SHOWN)})`;
}

function summaryLine(plan: Plan): string {
  const { summary } = plan;
  // Classes need a baseline; --unlisted-is-drift alone counts drift, which its note already tells.
  const counts = plan.baseline === undefined ? undefined : classCountsText(summary);
  const classes = counts === undefined ? '' : ` Classes: ${counts}.`;
  const filtered = plan.notes.find((note) => note.kind === 'filtered')?.domains.length ?? 0;
  // --only/--skip left nothing here (another target's sites, or only sites already in sync elsewhere): say that.
  if (plan.changes.length === 0 && summary.unchanged === 0 && filtered > 0)
    return `No changes. --only/--skip leave none of this configuration's websites (${countOf(filtered, 'website')} left out).${classes}`;
  if (plan.changes.length === 0)
    return `No changes. ${countOf(summary.unchanged, 'website')} ${summary.unchanged === 1 ? 'matches' : 'match'} the configuration.${classes}`;
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete; ${summary.unchanged} unchanged.${classes}`;
}
