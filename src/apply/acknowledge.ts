/**
 * Safety acknowledgements: a plan's safety violations block the apply unless
 * each one is acknowledged, each rule by the flag that fits it:
 * - over-limit deletes (`max_deletes`): `--allow-delete DOMAIN_OR_GLOB` naming
 *   every deleted domain, or a raised limit (`--max-deletes N`);
 * - an empty configuration with prune (`empty_config_prune`) and a suspected
 *   rename: only `--allow-delete` with each exact domain (no glob), since both
 *   are the shapes of a mistake that a glob would wave through;
 * - too large a share of the sites changed (`max_change_percent`): by raising
 *   that limit for the run (`--max-change-percent N`); deletes named with
 *   `--allow-delete` no longer count towards the share, so one command line
 *   acknowledges what a refusal listed.
 * - a broken `error` policy (docs/config.md, Policies): `--allow-policy
 *   NAME:DOMAIN` for a rule over a website, `--allow-policy NAME` for a rule
 *   over the plan, exactly (no glob).
 * A bare `*` is refused by the option parser: there is deliberately no global
 * --force. Pure.
 */
import { matchesAny } from '../model/glob.js';
import type { SafetyViolation } from '../model/plan.js';
import { blockingViolations, type PolicyReport, type PolicyViolation, violationKey } from '../model/policies.js';
import type { NeededAcknowledgement, SafetyRefusal } from '../render/safety-refusal.js';

export interface Acknowledgements {
  /** Domains or globs whose deletion the user accepts. */
  allowDelete: readonly string[];
  /** A raised delete limit, for `max_deletes` only. */
  maxDeletes?: number;
  /** A raised change-percent limit, for `max_change_percent` only. */
  maxChangePercent?: number;
  /** Broken error policies accepted: `NAME:DOMAIN` (a rule over a website) or `NAME` (over the plan), exactly. */
  allowPolicy?: readonly string[];
}

/** The error policy violations that the acknowledgements do not cover. */
export function unacknowledgedPolicies(report: PolicyReport | undefined, acks: Acknowledgements): PolicyViolation[] {
  const allowed = acks.allowPolicy ?? [];
  return blockingViolations(report).filter((violation) => !allowed.includes(violationKey(violation)));
}

/** The `--allow-policy` values that name no error violation of the plan: typos, or a stale command line. */
export function unmatchedAllowPolicy(report: PolicyReport | undefined, acks: Acknowledgements): string[] {
  const keys = new Set(blockingViolations(report).map(violationKey));
  return (acks.allowPolicy ?? []).filter((key) => !keys.has(key));
}

/** The violations that the acknowledgements do not cover. */
export function unacknowledged(violations: readonly SafetyViolation[], acks: Acknowledgements): SafetyViolation[] {
  return violations.filter((violation) => !isAcknowledged(violation, acks));
}

/** The violations that the acknowledgements cover (shown as acknowledged, not as refusals). */
export function acknowledged(violations: readonly SafetyViolation[], acks: Acknowledgements): SafetyViolation[] {
  return violations.filter((violation) => isAcknowledged(violation, acks));
}

function isAcknowledged(violation: SafetyViolation, acks: Acknowledgements): boolean {
  switch (violation.rule) {
    case 'max_change_percent':
      return percentNeeded(violation, acks) <= (acks.maxChangePercent ?? violation.limit ?? 100);
    case 'max_deletes':
      // Its domains are the deletes (checkSafety): as many as the violation's `actual`.
      if (acks.maxDeletes !== undefined && acks.maxDeletes >= violation.domains.length) return true;
      return namesEvery(violation, acks);
    case 'empty_config_prune':
    case 'suspected_rename':
      return namesEvery(violation, acks);
  }
}

/** The share of changed sites once the deletes named with --allow-delete are set aside. */
function percentNeeded(violation: SafetyViolation, acks: Acknowledgements): number {
  const total = violation.total ?? 0;
  const namedDeletes = (violation.deletes ?? []).filter((domain) => matchesAny(domain, acks.allowDelete)).length;
  if (namedDeletes === 0 || total === 0) return violation.actual ?? 100;
  return Math.round(((violation.domains.length - namedDeletes) * 1000) / total) / 10;
}

function namesEvery(violation: SafetyViolation, acks: Acknowledgements): boolean {
  return violation.domains.length > 0 && missingDomains(violation, acks).length === 0;
}

function missingDomains(violation: SafetyViolation, acks: Acknowledgements): string[] {
  if (violation.rule !== 'max_deletes') return violation.domains.filter((domain) => !acks.allowDelete.includes(domain));
  return violation.domains.filter((domain) => !matchesAny(domain, acks.allowDelete));
}

/**
 * What a refusal must say, as data (render/safety-refusal.ts words it): per
 * violation the domains still to name and the limit that would cover it, and
 * every flag needed at once.
 */
export function refusalOf(
  violations: readonly SafetyViolation[],
  acks: Acknowledgements,
  policies: readonly PolicyViolation[] = [],
): SafetyRefusal {
  const needed = violations.map((violation): NeededAcknowledgement => {
    const entry: NeededAcknowledgement = { violation, allowDelete: missingDomains(violation, acks) };
    if (violation.rule === 'max_deletes') entry.limit = violation.domains.length;
    if (violation.rule === 'max_change_percent') {
      entry.allowDelete = [];
      entry.limit = Math.ceil(percentNeeded(violation, acks));
    }
    return entry;
  });
  return { needed, policies: [...policies], allAtOnce: allFlags(violations, acks, policies) };
}

/**
 * Every flag the refused violations need, deletes named once each, the
 * percentage after those deletes, then each broken error policy.
 */
export function allFlags(
  violations: readonly SafetyViolation[],
  acks: Acknowledgements,
  policies: readonly PolicyViolation[] = [],
): string[] {
  const named = new Set<string>();
  for (const violation of violations) {
    if (violation.rule !== 'max_change_percent')
      for (const domain of missingDomains(violation, acks)) named.add(domain);
  }
  const withNamed: Acknowledgements = { ...acks, allowDelete: [...acks.allowDelete, ...named] };
  const flags = [...named].map((domain) => `--allow-delete ${domain}`);
  for (const violation of violations) {
    if (violation.rule === 'max_change_percent' && !isAcknowledged(violation, withNamed)) {
      flags.push(`--max-change-percent ${Math.ceil(percentNeeded(violation, withNamed))}`);
    }
  }
  for (const key of new Set(policies.map(violationKey))) flags.push(`--allow-policy ${key}`);
  return flags;
}

/** The flags given that acknowledge `violation`, for the plan's wording; undefined when it stands. */
export function acknowledgedBy(violation: SafetyViolation, acks: Acknowledgements): string[] | undefined {
  if (!isAcknowledged(violation, acks)) return undefined;
  const deletes = violation.rule === 'max_change_percent' ? (violation.deletes ?? []) : violation.domains;
  const exact = violation.rule === 'empty_config_prune' || violation.rule === 'suspected_rename';
  const named = acks.allowDelete
    .filter((glob) => (exact ? deletes.includes(glob) : deletes.some((domain) => matchesAny(domain, [glob]))))
    .map((glob) => `--allow-delete ${glob}`);
  switch (violation.rule) {
    case 'max_deletes':
      return namesEvery(violation, acks) ? named : [`--max-deletes ${acks.maxDeletes}`];
    case 'max_change_percent':
      return acks.maxChangePercent === undefined ? named : [...named, `--max-change-percent ${acks.maxChangePercent}`];
    default:
      return named;
  }
}
