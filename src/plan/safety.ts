/**
 * Safety rules over a finished plan: too many deletes, too large a share of
 * the in-scope sites changed, an empty configuration with prune on, and a
 * suspected rename (a delete and a create with matching settings: a domain
 * edit that would destroy the old site's analytics history). Pure; each
 * violation is data in the plan (render/plan-text.ts words it), and `apply`
 * enforces it.
 */
import type { CreateChange, DeleteChange, Plan, PlanPolicy, SafetyViolation } from '../model/plan.js';
import { editDistance } from '../model/text.js';
import { SETTING_NAMES, type SettingName, sameValue, type WebsiteSettings } from '../model/website.js';

export interface SafetyContext {
  limits: PlanPolicy['limits'];
  prune: boolean;
  /** Websites the configuration lists. */
  desiredCount: number;
  /** Live websites inside `manage`. */
  inScopeLiveCount: number;
}

/** Below this many in-scope sites a percentage says little (one change of five is 20%). */
export const MIN_SITES_FOR_PERCENT = 10;

export function checkSafety(plan: Plan, context: SafetyContext): SafetyViolation[] {
  const deletes = plan.changes.filter((change): change is DeleteChange => change.action === 'delete');
  const creates = plan.changes.filter((change): change is CreateChange => change.action === 'create');
  const violations: SafetyViolation[] = [];
  const deleted = deletes.map((change) => change.domain);

  if (context.prune && context.desiredCount === 0 && deletes.length > 0) {
    violations.push({
      rule: 'empty_config_prune',
      domains: deleted,
    });
  }
  if (deletes.length > context.limits.maxDeletes) {
    violations.push({
      rule: 'max_deletes',
      domains: deleted,
      limit: context.limits.maxDeletes,
      actual: deletes.length,
    });
  }
  const changed = plan.changes.filter((change) => change.action !== 'create').map((change) => change.domain);
  if (context.inScopeLiveCount >= MIN_SITES_FOR_PERCENT) {
    const percent = (changed.length * 100) / context.inScopeLiveCount;
    if (percent > context.limits.maxChangePercent) {
      violations.push({
        rule: 'max_change_percent',
        domains: changed,
        limit: context.limits.maxChangePercent,
        actual: Math.round(percent * 10) / 10,
        total: context.inScopeLiveCount,
        deletes: deleted,
      });
    }
  }
  violations.push(...suspectedRenames(deletes, creates));
  return violations;
}

/**
 * Pairs each delete, in domain order, with the first unpaired create whose
 * settings match on every field the old site reports. The service cannot
 * rename a domain, so such a pair is almost always an edit of the domain.
 * Creates are bucketed by those settings, so thousands of each stay linear.
 */
function suspectedRenames(deletes: DeleteChange[], creates: CreateChange[]): SafetyViolation[] {
  return renamePairs(deletes, creates).map(([deletion, creation]) => ({
    rule: 'suspected_rename',
    domains: [deletion.domain],
    renamedTo: creation.domain,
  }));
}

/** An old site (a delete, or a kept site with prune off) that a create may be a rename of. */
export interface RenameCandidate {
  domain: string;
  before: Partial<WebsiteSettings>;
}

/** The one pairing rule for renames, shared by the safety rule and the prune-off note. */
export function renamePairs<Old extends RenameCandidate>(
  olds: readonly Old[],
  creates: readonly CreateChange[],
): [Old, CreateChange][] {
  const buckets = new Map<string, Map<string, CreateChange[]>>();
  const paired = new Set<CreateChange>();
  const pairs: [Old, CreateChange][] = [];
  for (const deletion of olds) {
    const comparable = SETTING_NAMES.filter((name) => deletion.before[name] !== undefined);
    if (comparable.length === 0) continue;
    const signature = comparable.join(',');
    let bySettings = buckets.get(signature);
    if (bySettings === undefined) {
      bySettings = bucketCreates(creates, comparable);
      buckets.set(signature, bySettings);
    }
    const candidates = bySettings.get(settingsKey(deletion.before, comparable)) ?? [];
    const index = candidates.findIndex(
      (create) =>
        !paired.has(create) &&
        alikeDomains(deletion.domain, create.domain) &&
        comparable.every((name) => sameValue(deletion.before[name], create.after[name])),
    );
    if (index < 0) continue;
    const [creation] = candidates.splice(index, 1) as [CreateChange];
    paired.add(creation); // spent for the buckets of every other signature too
    pairs.push([deletion, creation]);
  }
  return pairs;
}

/**
 * Whether `to` reads as an edit of `from`: the same first label (shop.example.com
 * → shop.example.org) or a small edit of the whole (a typo, another TLD).
 * Settings alone pair any two sites that share the defaults (api.acme.example
 * → blog.staging.acme.example), which is noise when most sites do.
 */
export function alikeDomains(from: string, to: string): boolean {
  if (from.split('.', 1)[0] === to.split('.', 1)[0]) return true;
  const limit = Math.max(3, Math.floor(Math.max(from.length, to.length) / 4));
  return Math.abs(from.length - to.length) <= limit && editDistance(from, to) <= limit;
}

/** A grouping key over canonical values; matches are still confirmed with `sameValue`. */
function settingsKey(settings: Partial<WebsiteSettings>, names: readonly SettingName[]): string {
  return JSON.stringify(names.map((name) => settings[name]));
}

function bucketCreates(creates: readonly CreateChange[], names: readonly SettingName[]): Map<string, CreateChange[]> {
  const byKey = new Map<string, CreateChange[]>();
  for (const create of creates) {
    const key = settingsKey(create.after, names);
    const bucket = byKey.get(key);
    if (bucket === undefined) byKey.set(key, [create]);
    else bucket.push(create);
  }
  return byKey;
}
