/**
 * The git baseline (the configuration as it was at REF, normally the commit
 * last applied): which write-only values changed since, and why each planned
 * change is planned. PURE: the configuration at REF arrives already loaded.
 *
 * - `pending`: the configuration changed since REF, the live side still equals
 *   the configuration at REF (a change waiting for apply);
 * - `drift`: the configuration did not change, the live side moved;
 * - `conflict`: both moved, and they disagree.
 *
 * A change takes the most serious class of its fields (conflict, drift, pending).
 * docs/plan-format.md, "Baseline".
 */
import type { Baseline, Change, ChangeClass, FieldChange, Plan } from '../model/plan.js';
import {
  type DesiredWebsite,
  FIELDS,
  type FieldName,
  type LiveWebsite,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
  sameValue,
} from '../model/website.js';
import { canonicalOf } from './compare.js';
import { policyFromConfig } from './policy.js';
import { type Scope, scopeOf } from './scope.js';

const SEVERITY: Readonly<Record<ChangeClass, number>> = { pending: 0, drift: 1, conflict: 2 };
const FIELD_ORDER: readonly FieldName[] = [...SETTING_NAMES, 'password'];

/** The baseline's websites by domain. */
export function baselineSites(baseline: Baseline): Map<string, DesiredWebsite> {
  return new Map(baseline.websites.map((site) => [site.domain, site]));
}

const desiredValue = (site: DesiredWebsite, name: SettingName): SettingValue =>
  canonicalOf(name, site.settings[name]) ?? FIELDS[name].defaultValue;

/**
 * Write-only values to send because the configuration changed them since the
 * baseline: an unreadable setting whose configured value differs from the
 * one at REF, and the password when its `password_version` changed (a
 * rotation). Nothing of a secret is compared: only the version text.
 * Returns `fields` with these added, in field order.
 */
export function withBaselineWrites(
  fields: FieldChange[],
  desired: DesiredWebsite,
  base: DesiredWebsite | undefined,
  live: LiveWebsite,
): FieldChange[] {
  // Nothing to do and no allocation for the usual site (everything readable, no rotation).
  if (base === undefined || (!someUnreadable(live) && !rotated(desired, base))) return fields;
  const added: FieldChange[] = [];
  for (const name of SETTING_NAMES) {
    if (live.settings[name] !== undefined || desired.ignoreChanges.includes(name) || sends(fields, name)) continue;
    const after = desiredValue(desired, name);
    if (!sameValue(desiredValue(base, name), after)) added.push({ field: name, after, writeOnly: true });
  }
  if (rotated(desired, base) && !sends(fields, 'password')) added.push({ field: 'password', writeOnly: true });
  if (added.length === 0) return fields;
  return [...fields, ...added].sort((a, b) => FIELD_ORDER.indexOf(a.field) - FIELD_ORDER.indexOf(b.field));
}

function someUnreadable(live: LiveWebsite): boolean {
  for (const name of SETTING_NAMES) if (live.settings[name] === undefined) return true;
  return false;
}

const sends = (fields: readonly FieldChange[], name: FieldName): boolean =>
  fields.some((field) => field.field === name);

/** The password is configured now and was at REF, and its `password_version` differs. */
function rotated(desired: DesiredWebsite, base: DesiredWebsite): boolean {
  if (desired.password === undefined || desired.ignoreChanges.includes('password')) return false;
  return base.password !== undefined && base.passwordVersion !== desired.passwordVersion;
}

/** The class of one field of an update. */
export function fieldClass(
  field: FieldChange,
  desired: DesiredWebsite,
  base: DesiredWebsite | undefined,
  live: LiveWebsite,
): ChangeClass {
  // Listed since REF: whatever it sends is the configuration's doing (adopting a live site).
  if (base === undefined) return 'pending';
  if (field.field === 'password') return passwordClass(desired, base, live);
  const name = field.field;
  // Compared again since REF (taken out of ignore_changes): the configuration's doing.
  if (base.ignoreChanges.includes(name) && !desired.ignoreChanges.includes(name)) return 'pending';
  const before = field.before;
  const atBaseline = desiredValue(base, name);
  const configMoved = !sameValue(atBaseline, desiredValue(desired, name));
  // Unreadable: sent because the configuration changed it, or because --sync-write-only asked.
  if (before === undefined) return 'pending';
  const liveMoved = !sameValue(before, atBaseline);
  if (configMoved && liveMoved) return 'conflict';
  return liveMoved ? 'drift' : 'pending';
}

/**
 * A password is sent for a rotation, for a site that became password-protected
 * (pending), or because the live site reports none although nothing changed in
 * the configuration (drift: it was removed outside sitesync).
 */
function passwordClass(desired: DesiredWebsite, base: DesiredWebsite, live: LiveWebsite): ChangeClass {
  const configured = base.password !== undefined && base.passwordVersion === desired.passwordVersion;
  if (!configured) return 'pending';
  return live.hasPassword === false ? 'drift' : 'pending';
}

/** A create: listed at REF too, so it was deleted outside sitesync (drift); else new in the configuration. */
export function createClass(base: DesiredWebsite | undefined): ChangeClass {
  return base === undefined ? 'pending' : 'drift';
}

/**
 * A delete is drift when the configuration at REF would have deleted the site
 * too (it was created outside sitesync); pending when the configuration
 * changed to delete it (unlisted since REF, prune turned on, scope widened).
 */
export function deleteClass(
  domain: string,
  baseline: Baseline,
  baseSites: ReadonlyMap<string, DesiredWebsite>,
  baseScope: Scope,
): ChangeClass {
  if (baseSites.has(domain) || !baseline.policy.prune) return 'pending';
  return baseScope.inScope(domain) && !baseScope.isProtected(domain) ? 'drift' : 'pending';
}

export function mostSerious(classes: readonly ChangeClass[]): ChangeClass {
  let worst: ChangeClass = 'pending';
  for (const each of classes) if (SEVERITY[each] > SEVERITY[worst]) worst = each;
  return worst;
}

/**
 * Classifies every change of a finished plan, in place: each change and each
 * update field gets `class`, and the summary counts changes by class
 * (`drift` also counts unlisted_drift sites).
 */
export function classifyPlan(
  result: Plan,
  baseline: Baseline,
  desired: readonly DesiredWebsite[],
  live: ReadonlyMap<string, LiveWebsite>,
  baseSites: ReadonlyMap<string, DesiredWebsite> = baselineSites(baseline),
): void {
  const context = {
    baseline,
    baseSites,
    baseScope: scopeOf(policyFromConfig(baseline.policy)),
    desired: updatedSites(result, desired),
    live,
  };
  for (const change of result.changes) classifyChange(change, context);
  countClasses(result);
  result.baseline = { ...baseline.ref };
}

interface ClassifyContext {
  baseline: Baseline;
  baseSites: ReadonlyMap<string, DesiredWebsite>;
  /** The baseline's `manage` scope and `protect`, compiled once. */
  baseScope: Scope;
  desired: ReadonlyMap<string, DesiredWebsite>;
  live: ReadonlyMap<string, LiveWebsite>;
}

function classifyChange(change: Change, context: ClassifyContext): void {
  const { baseline, baseSites, baseScope, desired, live } = context;
  const base = baseSites.get(change.domain);
  if (change.action === 'delete') {
    change.class = deleteClass(change.domain, baseline, baseSites, baseScope);
    return;
  }
  if (change.action === 'create') {
    change.class = createClass(base);
    for (const field of change.fields) field.class = change.class;
    return;
  }
  const site = desired.get(change.domain);
  const current = live.get(change.domain);
  if (site === undefined || current === undefined) return; // the planner made this update from both
  for (const field of change.fields) field.class = fieldClass(field, site, base, current);
  change.class = mostSerious(change.fields.map((field) => field.class ?? 'pending'));
}

/** The desired sites behind the plan's updates, by domain (a few of the 100,000 a plan may list). */
function updatedSites(result: Plan, desired: readonly DesiredWebsite[]): Map<string, DesiredWebsite> {
  const updated = new Set(result.changes.flatMap((change) => (change.action === 'update' ? [change.domain] : [])));
  const sites = new Map<string, DesiredWebsite>();
  for (const site of desired) if (updated.has(site.domain) && !sites.has(site.domain)) sites.set(site.domain, site);
  return sites;
}

/** Summary counts of changes by class, plus unlisted sites reported as drift. */
export function countClasses(result: Plan): void {
  const counts = { pending: 0, drift: 0, conflict: 0 };
  for (const change of result.changes) if (change.class !== undefined) counts[change.class] += 1;
  for (const note of result.notes) if (note.kind === 'unlisted_drift') counts.drift += note.domains.length;
  result.summary.pending = counts.pending;
  result.summary.drift = counts.drift;
  result.summary.conflict = counts.conflict;
}
