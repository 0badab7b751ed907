/**
 * Safety acknowledgements: a plan's safety violations block the apply unless
 * each one is acknowledged by name. Deletes over the limit are acknowledged per
 * domain (`--allow-delete DOMAIN_OR_GLOB`) or by raising the limit
 * (`--max-deletes N`); every other rule (empty configuration with prune, a
 * suspected rename) only by naming the domains whose history would be lost.
 * There is deliberately no global --force. Pure.
 */
import { matchesAny } from '../model/glob.js';
import type { SafetyViolation } from '../model/plan.js';

export interface Acknowledgements {
  /** Domains or globs whose deletion the user accepts. */
  allowDelete: readonly string[];
  /** A raised delete limit, for `max_deletes` only. */
  maxDeletes?: number;
}

/** The violations that the acknowledgements do not cover. */
export function unacknowledged(violations: readonly SafetyViolation[], acks: Acknowledgements): SafetyViolation[] {
  return violations.filter((violation) => !isAcknowledged(violation, acks));
}

function isAcknowledged(violation: SafetyViolation, acks: Acknowledgements): boolean {
  if (violation.rule === 'max_deletes' && acks.maxDeletes !== undefined) {
    if (acks.maxDeletes >= (violation.actual ?? violation.domains.length)) return true;
  }
  return violation.domains.length > 0 && missingDomains(violation, acks).length === 0;
}

function missingDomains(violation: SafetyViolation, acks: Acknowledgements): string[] {
  return violation.domains.filter((domain) => !matchesAny(domain, acks.allowDelete));
}

/** What to print when refusing: each rule broken, then the exact flags that would acknowledge them. */
export function refusalMessage(violations: readonly SafetyViolation[], acks: Acknowledgements): string {
  const lines = [
    `refusing to apply: the plan breaks ${violations.length} safety rule${violations.length === 1 ? '' : 's'}:`,
  ];
  for (const violation of violations) lines.push(`  - ${violation.message} [${violation.rule}]`);
  const domains = [...new Set(violations.flatMap((violation) => missingDomains(violation, acks)))];
  if (domains.length > 0) {
    lines.push('To apply anyway, acknowledge each domain whose analytics history would be lost:');
    lines.push(`  ${domains.map((domain) => `--allow-delete ${domain}`).join(' ')}`);
  }
  const deleteLimit = violations.find((violation) => violation.rule === 'max_deletes');
  if (deleteLimit) {
    const needed = deleteLimit.actual ?? deleteLimit.domains.length;
    const only = violations.length === 1 ? '' : ' (covers the delete limit only)';
    lines.push(`or raise the delete limit: --max-deletes ${needed}${only}`);
  }
  if (domains.length === 0 && !deleteLimit)
    lines.push('Review the configuration: these rules cannot be acknowledged by flag.');
  return lines.join('\n');
}
