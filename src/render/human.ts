/**
 * The plan for a terminal: destructive changes first and loud, then every
 * change with its field lines, safety violations, notes and a summary line.
 * Stable and readable without colour; colour is added last by `paint`.
 */
import type { Attribution } from '../model/attribution.js';
import type { Plan } from '../model/plan.js';
import { countOf } from '../model/text.js';
import { CONFIG_FIELD_NAMES } from '../model/website.js';
import type { ExplainOutcome, FieldExplanation, SiteExplanation } from '../plan/explain.js';
import { type Line, paint, type Tone } from './colors.js';
import { type LineKind, type PoliciesView, projectPlan } from './projection.js';

export interface HumanOptions {
  color: boolean;
  /** Heading naming where the live state came from. */
  target?: string;
  explain?: SiteExplanation[];
  /**
   * On apply: per safety violation (plan order), the flags that acknowledged
   * it, or undefined when it stands. Absent on plan, where nothing is acknowledged yet.
   */
  acknowledgedBy?: readonly (readonly string[] | undefined)[];
  /** On apply: the broken error policies acknowledged (`--allow-policy` values). Absent on plan. */
  allowPolicy?: readonly string[];
  /** The commit of each change (plan in a git work tree). */
  attribution?: Attribution;
}

const FIELD_TONE: Record<LineKind, Tone> = {
  set: 'create',
  change: 'update',
  added: 'create',
  removed: 'delete',
  kept: 'muted',
  'write-only': 'muted',
  ignored: 'muted',
};
const SITE_TONE = { create: 'create', update: 'update', unchanged: 'muted' } as const;

export function renderHuman(plan: Plan, options: HumanOptions): string {
  const view = projectPlan(plan, options.attribution);
  const lines: Line[] = [];
  const push = (text: string, tone: Tone = 'plain'): void => {
    lines.push({ text, tone });
  };
  if (options.target !== undefined) push(`sitesync plan for ${options.target}`, 'heading');
  if (view.baseline !== undefined) push(view.baseline, 'muted');
  if (view.destructive.length > 0) {
    push('');
    push(`DESTRUCTIVE: ${countOf(view.destructive.length, 'website')} will be deleted`, 'danger');
    for (const warning of view.destructive) push(`  ${warning}`, 'danger');
  }
  for (const site of view.sites) {
    push('');
    push(site.headline, SITE_TONE[site.action]);
    const origin = site.origin;
    if (origin !== undefined)
      push(`    ${origin.commit === undefined ? '' : `from ${origin.commit} `}${origin.text}`, 'muted');
    for (const field of site.fields) push(field.text, FIELD_TONE[field.kind]);
  }
  if (view.safety.length > 0) {
    push('');
    const acks = options.acknowledgedBy;
    if (acks === undefined) {
      push('Safety violations (apply refuses this plan unless acknowledged):', 'danger');
      for (const violation of view.safety) push(`  ✗ ${violation}`, 'danger');
    } else {
      push('Safety violations:', 'danger');
      view.safety.forEach((violation, index) => {
        const flags = acks[index];
        if (flags === undefined) push(`  ✗ ${violation} (not acknowledged: apply refuses)`, 'danger');
        else push(`  ! ${violation} (acknowledged by ${flags.join(' ')})`, 'update');
      });
    }
  }
  if (view.policies !== undefined) lines.push(...policyLines(view.policies, options.allowPolicy));
  if (view.classes.length > 0) {
    push('');
    for (const line of view.classes) push(line, line.startsWith('Pending') ? 'update' : 'danger');
  }
  const notes = view.attributionNote === undefined ? view.notes : [...view.notes, view.attributionNote];
  if (notes.length > 0) {
    push('');
    for (const note of notes) push(`Note: ${note}`, 'muted');
  }
  if (options.explain !== undefined) lines.push(...explainLines(options.explain));
  push('');
  if (view.coverage !== undefined) push(view.coverage, 'muted');
  push(view.summary, 'heading');
  while (lines[0]?.text === '') lines.shift();
  return paint(lines, options.color);
}

/** Broken policies, errors first as apply would refuse them, and a line counting what was checked. */
function policyLines(view: PoliciesView, allowed: readonly string[] | undefined): Line[] {
  const lines: Line[] = [{ text: '', tone: 'plain' }];
  const errors = view.violations.filter((each) => each.severity === 'error');
  if (errors.length > 0) {
    const heading = allowed === undefined ? ' (apply refuses this plan unless acknowledged)' : '';
    lines.push({ text: `Policy errors${heading}:`, tone: 'danger' });
    for (const each of errors) {
      const acknowledged = allowed?.includes(each.key) === true;
      const state =
        allowed === undefined
          ? ''
          : acknowledged
            ? ` (acknowledged by --allow-policy ${each.key})`
            : ' (not acknowledged: apply refuses)';
      lines.push({
        text: `  ${acknowledged ? '!' : '✗'} ${each.text}${state}`,
        tone: acknowledged ? 'update' : 'danger',
      });
    }
  }
  const warnings = view.violations.filter((each) => each.severity === 'warning');
  if (warnings.length > 0) {
    lines.push({ text: 'Policy warnings (shown, never blocking):', tone: 'update' });
    for (const each of warnings) lines.push({ text: `  ! ${each.text}`, tone: 'update' });
  }
  lines.push({ text: view.summary, tone: 'muted' });
  return lines;
}

const raw = (value: unknown): string => (value === undefined ? '(none)' : JSON.stringify(value));

function explainLines(sites: SiteExplanation[]): Line[] {
  const lines: Line[] = [
    { text: '', tone: 'plain' },
    { text: 'Explain: raw → canonical, live and desired', tone: 'heading' },
  ];
  for (const site of sites) {
    lines.push({ text: `  ${site.domain} (id ${site.id})`, tone: 'plain' });
    for (const field of site.fields) {
      lines.push({ text: `    ${explainText(field)}`, tone: field.outcome === 'change' ? 'update' : 'muted' });
    }
  }
  return lines;
}

function explainText(field: FieldExplanation): string {
  if (field.field === 'password') return passwordText(field);
  return `${CONFIG_FIELD_NAMES[field.field]}: live ${raw(field.live.raw)} → ${raw(field.live.canonical)}; desired ${raw(field.desired.raw)} → ${raw(field.desired.canonical)}: ${field.outcome}`;
}

const PASSWORD_OUTCOME: Readonly<Record<ExplainOutcome, string>> = {
  same: 'same',
  change: 'will be sent',
  ignored: 'ignored (ignore_changes)',
  'write-only': 'write-only: the value cannot be read back, so it is not compared',
  'not-managed': 'not managed',
};

/** Only whether a password is set is readable; the configured value is never shown. */
function passwordText(field: FieldExplanation): string {
  const live = field.live.canonical === undefined ? 'not reported' : field.live.canonical ? 'set' : 'not set';
  const desired = field.desired.canonical === true ? 'configured (value never shown)' : 'not configured';
  return `password: live ${live}; desired ${desired}: ${PASSWORD_OUTCOME[field.outcome]}`;
}
