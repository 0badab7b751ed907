/**
 * The re-derivation of a saved plan: apply plans again from the configuration
 * it loaded and the live state the file records, and lists every place where
 * the file says something else (a change added, dropped or edited, a field, a
 * safety violation, the policy). The signature proves who wrote the file; this
 * proves the file is what the planner makes of the configuration, so an
 * edited plan is refused even by a key holder. Pure: the plan is re-made by
 * the pure planner, the differences are data (render/ words them).
 */
import { canonicalJson } from '../model/canonical-json.js';
import type { ConfigPolicy } from '../model/desired-state.js';
import type { Baseline, Change, Plan, PlanPolicy } from '../model/plan.js';
import type { PolicyReport } from '../model/policies.js';
import type { DesiredWebsite } from '../model/website.js';
import { plan } from './planner.js';
import { type CliPolicy, policyFromConfig } from './policy.js';
import { fingerprintsOf, type SavedPlan } from './saved-plan.js';

/** One place where the file and the re-derived plan disagree; a value absent on a side is undefined. */
export interface PlanDifference {
  /** The site concerned, or undefined for the policy and plan-wide parts (summary, safety, notes). */
  domain: string | undefined;
  /** What differs: `change` (a whole change, present on one side), a field name, `policy.prune`, `safety`... */
  part: string;
  inFile: unknown;
  derived: unknown;
}

export interface Rederived {
  plan: Plan;
  /** The policy the file was planned with, over this configuration. */
  policy: PlanPolicy;
  differences: PlanDifference[];
}

/**
 * Plans again from `desired` (the loaded configuration) and the file's recorded live state, and compares.
 * `rules`: what the configuration's policies say of a plan (engine/policies.ts), compared with what the file recorded.
 */
export function rederive(
  saved: SavedPlan,
  desired: readonly DesiredWebsite[],
  config: ConfigPolicy,
  baseline?: Baseline,
  rules?: (derived: Plan, policy: PlanPolicy) => PolicyReport | undefined,
): Rederived {
  const policy = policyFromConfig(config, savedChoices(saved.policy));
  const derived = plan(desired, saved.live, policy, baseline);
  const report = rules?.(derived, policy);
  if (report !== undefined) derived.policies = report;
  const differences = [
    ...policyDifferences(saved.policy, policy),
    ...changeDifferences(saved.plan.changes, derived.changes),
  ];
  for (const part of ['safety', 'notes', 'summary', 'ignoredOnly', 'policies'] as const) {
    differences.push(...wholeDifference(undefined, part, saved.plan[part], derived[part]));
  }
  differences.push(...wholeDifference(undefined, 'fingerprints', saved.fingerprints, fingerprintsOf(derived)));
  // An edited field shows in both `after` and `fields`: name it once.
  const seen = new Set<string>();
  const unique = differences.filter((difference) => {
    const key = `${difference.domain ?? ''}\0${difference.part}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { plan: derived, policy, differences: unique };
}

/**
 * The command-line choices the plan was made with, as the file records them:
 * --only/--skip, what --sync-write-only selected, --unlisted-is-drift, and the
 * day that decided which ignore_changes rules had expired (so a plan made the
 * day before an `until` re-derives the same the day after).
 */
function savedChoices(saved: PlanPolicy): CliPolicy {
  const choices: CliPolicy = {
    only: saved.only,
    skip: saved.skip,
    syncWriteOnly: saved.syncWriteOnly
      ? { fields: saved.syncWriteOnlyFields ?? [], sites: saved.syncWriteOnlySites ?? [] }
      : false,
    unlistedIsDrift: saved.unlistedIsDrift === true,
  };
  if (saved.today !== undefined) choices.today = saved.today;
  return choices;
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

function wholeDifference(
  domain: string | undefined,
  part: string,
  inFile: unknown,
  derived: unknown,
): PlanDifference[] {
  return same(inFile, derived) ? [] : [{ domain, part, inFile, derived }];
}

function policyDifferences(inFile: PlanPolicy, derived: PlanPolicy): PlanDifference[] {
  const keys = new Set([...Object.keys(inFile), ...Object.keys(derived)]) as Set<keyof PlanPolicy>;
  return [...keys].flatMap((key) => wholeDifference(undefined, `policy.${key}`, inFile[key], derived[key]));
}

function changeDifferences(inFile: readonly Change[], derived: readonly Change[]): PlanDifference[] {
  const derivedByDomain = new Map(derived.map((change) => [change.domain, change]));
  const fileDomains = new Set(inFile.map((change) => change.domain));
  const differences: PlanDifference[] = [];
  for (const change of inFile) {
    const other = derivedByDomain.get(change.domain);
    if (other === undefined || other.action !== change.action) {
      differences.push({ domain: change.domain, part: 'change', inFile: change.action, derived: other?.action });
    } else {
      differences.push(...siteDifferences(change, other));
    }
  }
  for (const change of derived) {
    if (!fileDomains.has(change.domain)) {
      differences.push({ domain: change.domain, part: 'change', inFile: undefined, derived: change.action });
    }
  }
  return differences;
}

/** Field by field where the change has fields (`after`, `before`, `fields`), whole otherwise (id, fingerprint). */
function siteDifferences(inFile: Change, derived: Change): PlanDifference[] {
  const file = inFile as unknown as Record<string, unknown>;
  const again = derived as unknown as Record<string, unknown>;
  const differences: PlanDifference[] = [];
  for (const key of new Set([...Object.keys(file), ...Object.keys(again)])) {
    if (same(file[key], again[key])) continue;
    if (key === 'after' || key === 'before') {
      differences.push(...recordDifferences(inFile.domain, key, file[key], again[key]));
    } else if (key === 'fields' || key === 'ignored') {
      differences.push(...fieldListDifferences(inFile.domain, key, file[key], again[key]));
    } else {
      differences.push({ domain: inFile.domain, part: key, inFile: file[key], derived: again[key] });
    }
  }
  return differences;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function recordDifferences(domain: string, key: string, inFile: unknown, derived: unknown): PlanDifference[] {
  const file = asRecord(inFile);
  const again = asRecord(derived);
  const names = new Set([...Object.keys(file), ...Object.keys(again)]);
  const differences = [...names].flatMap((name) => wholeDifference(domain, name, file[name], again[name]));
  return differences.length > 0 ? differences : [{ domain, part: key, inFile, derived }];
}

/** Lists of `{field, ...}`: compared per field name. */
function fieldListDifferences(domain: string, key: string, inFile: unknown, derived: unknown): PlanDifference[] {
  const byField = (list: unknown) =>
    new Map((Array.isArray(list) ? list : []).map((entry) => [String(asRecord(entry).field), entry]));
  const file = byField(inFile);
  const again = byField(derived);
  const names = new Set([...file.keys(), ...again.keys()]);
  const differences = [...names].flatMap((name) => wholeDifference(domain, name, file.get(name), again.get(name)));
  return differences.length > 0 ? differences : [{ domain, part: key, inFile, derived }];
}
