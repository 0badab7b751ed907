/**
 * The words of apply's safety refusal (exit 3): each rule broken, per rule the
 * exact flags that would acknowledge it, and one line with every flag at once.
 * What is needed is decided in apply/acknowledge.ts (data); this only words it.
 * Data in, text out; no I/O.
 */
import type { SafetyViolation } from '../model/plan.js';
import { type PolicyViolation, violationKey } from '../model/policies.js';
import { countOf, printable } from '../model/text.js';
import { policyViolationText, violationText } from './plan-text.js';

/** What one refused violation still needs (apply/acknowledge.ts `refusalOf`). */
export interface NeededAcknowledgement {
  violation: SafetyViolation;
  /** Deleted domains not named yet with --allow-delete. */
  allowDelete: string[];
  /** `max_deletes`: the --max-deletes that covers it; `max_change_percent`: the --max-change-percent. */
  limit?: number;
}

export interface SafetyRefusal {
  needed: NeededAcknowledgement[];
  /** Broken error policies not acknowledged with --allow-policy. */
  policies: PolicyViolation[];
  /** Every flag at once (deletes named once, the percentage after them). */
  allAtOnce: string[];
}

export function safetyRefusalText(refusal: SafetyRefusal): string {
  const { needed, policies } = refusal;
  const broken = [
    ...(needed.length > 0 ? [countOf(needed.length, 'safety rule')] : []),
    ...(policies.length > 0 ? [`${policies.length} error polic${policies.length === 1 ? 'y' : 'ies'}`] : []),
  ];
  const lines = [`refusing to apply: the plan breaks ${broken.join(' and ')}:`];
  for (const { violation } of needed) lines.push(`  - ${violationText(violation)} [${violation.rule}]`);
  for (const violation of policies) lines.push(`  - ${policyViolationText(violation)}`);
  lines.push('To apply anyway:');
  for (const entry of needed) lines.push(`  - ${acknowledgementText(entry)}`);
  for (const violation of policies)
    lines.push(`  - [${violation.policy}] acknowledge it by name: --allow-policy ${violationKey(violation)}`);
  if (needed.length + policies.length > 1) lines.push(`All at once: ${refusal.allAtOnce.join(' ')}`);
  // Domains come from the configuration and the service: never a raw control byte on the terminal.
  return lines.map(printable).join('\n');
}

function acknowledgementText({ violation, allowDelete, limit }: NeededAcknowledgement): string {
  const allow = allowDelete.map((domain) => `--allow-delete ${domain}`).join(' ');
  switch (violation.rule) {
    case 'max_deletes':
      return `[max_deletes] name each deleted domain (its analytics history is lost): ${allow}; or raise the delete limit: --max-deletes ${limit}`;
    case 'empty_config_prune':
      return `[empty_config_prune] name each domain to delete, exactly (its analytics history is lost): ${allow}`;
    case 'suspected_rename':
      return `[suspected_rename] name the old domain, exactly, to delete it (its analytics history is lost): ${allow}`;
    case 'max_change_percent':
      return `[max_change_percent] raise the limit for this run: --max-change-percent ${limit}${(violation.deletes ?? []).length > 0 ? ' (deletes named with --allow-delete do not count)' : ''}`;
  }
}
