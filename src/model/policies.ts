/**
 * The team's rules (`policies:` in websites.yaml, docs/config.md "Policies")
 * and what a plan made of them: plain data. A rule is a CEL expression over
 * one website's desired settings (`site`) or over the plan (`plan`);
 * src/plan/policies/ compiles and evaluates it. Nothing here runs anything.
 */
import type { SourceLocation } from './website.js';

export type PolicySeverity = 'error' | 'warning';

/** `site`: evaluated once per matched website; `plan`: once over the plan's (matched) changes. */
export type PolicyKind = 'site' | 'plan';

/** One `policies:` entry as configured. */
export interface PolicyDeclaration {
  name: string;
  /** Domain globs (lowercase) and target names or globs; empty lists match everything. */
  match: { include: string[]; exclude: string[]; targets: string[] };
  rule: string;
  message: string;
  severity: PolicySeverity;
  /** The rule's path in the user's terms (`policies[2].rule`), for problems. */
  rulePath?: string;
  /**
   * Where the rule's character `offset` is written (file:line:column), found
   * when asked: only a rule that does not compile needs it, and finding it
   * may parse the file again with positions.
   */
  locate?: (offset: number) => SourceLocation;
}

/** One broken rule: a website (site rules) or the plan (plan rules). */
export interface PolicyViolation {
  policy: string;
  kind: PolicyKind;
  severity: PolicySeverity;
  /** The website, for a site rule; absent for a plan rule. */
  domain?: string;
  /** The policy's message, as configured. */
  message: string;
  /**
   * The rule could not be evaluated (a missing value, a cost over the limit):
   * counted as broken, so an error policy still blocks (fail closed).
   */
  error?: string;
}

/** What the policies said about one plan: recorded in the plan, a saved plan, and every output. */
export interface PolicyReport {
  /** `sha256:` over the policies as configured (name, match, rule, message, severity): a saved plan's check. */
  digest: string;
  /** How many policies applied to this target. */
  evaluated: number;
  /** By policy (declaration order), then domain. */
  violations: PolicyViolation[];
}

/** The name an acknowledgement gives a violation: `NAME:DOMAIN` for a site rule, `NAME` for a plan rule. */
export function violationKey(violation: Pick<PolicyViolation, 'policy' | 'domain'>): string {
  return violation.domain === undefined ? violation.policy : `${violation.policy}:${violation.domain}`;
}

/** The violations apply refuses: severity error. */
export function blockingViolations(report: PolicyReport | undefined): PolicyViolation[] {
  return (report?.violations ?? []).filter((violation) => violation.severity === 'error');
}
