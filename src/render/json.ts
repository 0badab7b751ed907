/**
 * The plan as JSON for programs (`--format json`): versioned with
 * `formatVersion`, with `hasChanges` and `safe` so CI need not rely on the
 * exit code alone. The shape is documented in docs/plan-format.md and
 * schemas/plan.schema.json. A plan holds no secret values, so neither does this.
 */
import type { Attribution } from '../model/attribution.js';
import { type Change, needsAcknowledgement, type Plan } from '../model/plan.js';
import { jsonDocument } from '../model/text.js';
import type { SiteExplanation } from '../plan/explain.js';
import { planDigest } from '../plan/fingerprint.js';
import { PLAN_FORMAT_VERSION } from './error-document.js';
import { noteText, violationText } from './plan-text.js';

export { PLAN_FORMAT_VERSION };

export interface JsonOptions {
  target?: string;
  explain?: SiteExplanation[];
  /** The commit of each change: an `origin` object on it (`liveSince` for drift). */
  attribution?: Attribution;
}

export function planDocument(plan: Plan, options: JsonOptions = {}): Record<string, unknown> {
  const document: Record<string, unknown> = {
    formatVersion: PLAN_FORMAT_VERSION,
    hasChanges: plan.changes.length > 0,
    safe: !needsAcknowledgement(plan),
    fingerprint: planDigest(plan),
  };
  // Only a plan classified against a baseline (or with --unlisted-is-drift) knows whether it has drift.
  if (plan.summary.drift !== undefined || plan.summary.conflict !== undefined)
    document.hasDrift = (plan.summary.drift ?? 0) + (plan.summary.conflict ?? 0) > 0;
  if (plan.baseline !== undefined) document.baseline = plan.baseline;
  if (options.target !== undefined) document.target = options.target;
  document.summary = plan.summary;
  if (plan.coverage !== undefined) document.coverage = plan.coverage;
  document.changes = withOrigins(plan.changes, options.attribution);
  if (options.attribution?.note !== undefined) document.attribution = { note: options.attribution.note };
  if (plan.ignoredOnly !== undefined) document.ignoredOnly = plan.ignoredOnly;
  // The document words notes and violations (`message`), in the order of its documented shape.
  document.notes = plan.notes.map((note) => ({
    kind: note.kind,
    message: noteText(note),
    domains: note.domains,
    ...(note.ids && { ids: note.ids }),
    ...(note.renameOf !== undefined && { renameOf: note.renameOf }),
    ...(note.field !== undefined && { field: note.field }),
    ...(note.until !== undefined && { until: note.until }),
    ...(note.reason !== undefined && { reason: note.reason }),
  }));
  document.safety = plan.safety.map((violation) => {
    const { rule, total: _total, deletes: _deletes, ...rest } = violation;
    return { rule, message: violationText(violation), ...rest };
  });
  if (plan.policies !== undefined) document.policies = plan.policies;
  // JSON has no `undefined`: a value the server does not return is null here.
  if (options.explain !== undefined)
    document.explain = JSON.parse(JSON.stringify(options.explain, (_key, value) => value ?? null));
  return document;
}

export function renderJson(plan: Plan, options: JsonOptions = {}): string {
  return jsonDocument(planDocument(plan, options));
}

/** Each attributed change with its `origin` (and drift with `liveSince`); the plan's own data unchanged. */
function withOrigins(changes: readonly Change[], attribution: Attribution | undefined): readonly unknown[] {
  if (attribution === undefined) return changes;
  return changes.map((change) => {
    const origin = attribution.origins.get(change.domain);
    const since = attribution.liveSince?.get(change.domain);
    if (origin === undefined && since === undefined) return change;
    return { ...change, ...(origin !== undefined && { origin }), ...(since !== undefined && { liveSince: since }) };
  });
}
