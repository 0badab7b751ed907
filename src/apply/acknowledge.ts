/**
 * Safety acknowledgements: a plan's safety violations block the apply unless
 * each one is acknowledged, each rule by the flag that fits it:
 * - over-limit deletes (`max_deletes`) and an empty configuration with prune
 *   (`empty_config_prune`): `--allow-delete DOMAIN_OR_GLOB` naming every deleted
 *   domain; over-limit deletes also by raising the limit (`--max-deletes N`);
 * - a suspected rename: only `--allow-delete OLD` (the old site's history is lost);
 * - too large a share of the sites changed (`max_change_percent`): only by
 *   raising that limit for the run (`--max-change-percent N`), since most of
 *   those changes are updates that lose nothing.
 * There is deliberately no global --force. Pure.
 */
import { matchesAny } from '../model/glob.js';
import type { SafetyViolation } from '../model/plan.js';
import { violationText } from '../render/plan-text.js';

export interface Acknowledgements {
  /** Domains or globs whose deletion the user accepts. */
  allowDelete: readonly string[];
  /** A raised delete limit, for `max_deletes` only. */
  maxDeletes?: number;
  /** A raised change-percent limit, for `max_change_percent` only. */
  maxChangePercent?: number;
}

/** The violations that the acknowledgements do not cover. */
export function unacknowledged(violations: readonly SafetyViolation[], acks: Acknowledgements): SafetyViolation[] {
  return violations.filter((violation) => !isAcknowledged(violation, acks));
}

function isAcknowledged(violation: SafetyViolation, acks: Acknowledgements): boolean {
  switch (violation.rule) {
    case 'max_change_percent':
      return acks.maxChangePercent !== undefined && acks.maxChangePercent >= (violation.actual ?? 100);
    case 'max_deletes':
      if (acks.maxDeletes !== undefined && acks.maxDeletes >= (violation.actual ?? violation.domains.length)) {
        return true;
      }
      return namesEvery(violation, acks);
    case 'empty_config_prune':
    case 'suspected_rename':
      return namesEvery(violation, acks);
  }
}

function namesEvery(violation: SafetyViolation, acks: Acknowledgements): boolean {
  return violation.domains.length > 0 && missingDomains(violation, acks).length === 0;
}

function missingDomains(violation: SafetyViolation, acks: Acknowledgements): string[] {
  return violation.domains.filter((domain) => !matchesAny(domain, acks.allowDelete));
}

/** What to print when refusing: each rule broken, then, per rule, the exact flags that would acknowledge it. */
export function refusalMessage(violations: readonly SafetyViolation[], acks: Acknowledgements): string {
  const lines = [
    `refusing to apply: the plan breaks ${violations.length} safety rule${violations.length === 1 ? '' : 's'}:`,
  ];
  for (const violation of violations) lines.push(`  - ${violationText(violation)} [${violation.rule}]`);
  lines.push('To apply anyway:');
  for (const violation of violations) lines.push(`  - ${acknowledgementFor(violation, acks)}`);
  return lines.join('\n');
}

function acknowledgementFor(violation: SafetyViolation, acks: Acknowledgements): string {
  const allow = missingDomains(violation, acks)
    .map((domain) => `--allow-delete ${domain}`)
    .join(' ');
  switch (violation.rule) {
    case 'max_deletes':
      return `[max_deletes] name each deleted domain (its analytics history is lost): ${allow}; or raise the delete limit: --max-deletes ${violation.actual ?? violation.domains.length}`;
    case 'empty_config_prune':
      return `[empty_config_prune] name each domain to delete (its analytics history is lost): ${allow}`;
    case 'suspected_rename':
      return `[suspected_rename] name the old domain to delete it (its analytics history is lost): ${allow}`;
    case 'max_change_percent':
      return `[max_change_percent] raise the limit for this run: --max-change-percent ${Math.ceil(violation.actual ?? 100)}`;
  }
}
