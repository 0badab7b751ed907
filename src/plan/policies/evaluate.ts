/**
 * Compiled policies over one target's plan → a PolicyReport: each site rule
 * over every configured website it matches (and the run selects: --only and
 * --skip), each plan rule once over the changes it matches. A rule that is
 * false is a violation; one that cannot be evaluated (a value that is absent,
 * a cost over the limit at this plan's sizes) is a violation too, with the
 * reason, so an error policy fails closed. Pure and synchronous.
 */
import { matchesAny, matchesGlob } from '../../model/glob.js';
import type { Change, Plan } from '../../model/plan.js';
import type { PolicyDeclaration, PolicyReport, PolicyViolation } from '../../model/policies.js';
import { CONFIG_FIELD_NAMES, type DesiredWebsite, SETTING_NAMES, type WebsiteSettings } from '../../model/website.js';
import { type CompiledPolicy, withinLimit } from './compile.js';
import { COST_LIMIT } from './cost.js';

export interface PolicyInput {
  websites: readonly DesiredWebsite[];
  plan: Plan;
  /** The target's name; undefined without `targets:`. */
  target?: string | undefined;
  /** --only / --skip: the websites this run is about. */
  selected?: (domain: string) => boolean;
}

export function evaluatePolicies(
  policies: readonly CompiledPolicy[],
  digest: string,
  input: PolicyInput,
): PolicyReport {
  const applying = policies.filter((policy) => appliesTo(policy.declaration, input.target));
  const violations: PolicyViolation[] = [];
  const sites = applying.some((policy) => policy.kind === 'site') ? siteValues(input) : [];
  for (const policy of applying) {
    if (policy.kind === 'site') violations.push(...siteViolations(policy, sites, input.target));
    else violations.push(...planViolations(policy, input));
  }
  return { digest, evaluated: applying.length, violations };
}

/** Whether the policy applies to this target's plans (`match.targets`; every target when empty). */
export function appliesTo(declaration: PolicyDeclaration, target: string | undefined): boolean {
  const { targets } = declaration.match;
  return targets.length === 0 || (target !== undefined && targets.some((glob) => matchesGlob(target, glob)));
}

/** Whether a website or change is within the policy's `match` (include/exclude globs). */
export function inMatch(declaration: PolicyDeclaration, domain: string): boolean {
  const { include, exclude } = declaration.match;
  return (include.length === 0 || matchesAny(domain, include)) && !matchesAny(domain, exclude);
}

/** A site as rules see it, built once per site for every rule. */
interface SiteValue {
  domain: string;
  value: Record<string, unknown>;
  /** Entries of its longest list setting (L in cost.ts). */
  longest: number;
}

function siteValues(input: PolicyInput): SiteValue[] {
  const selected = input.selected ?? (() => true);
  return input.websites
    .filter((site) => selected(site.domain))
    .map((site) => ({
      domain: site.domain,
      value: {
        domain: site.domain,
        ...settingsValue(site.settings),
        ignore_changes: site.ignoreChanges.map((field) => CONFIG_FIELD_NAMES[field]),
        has_password: site.password !== undefined,
      },
      longest: Math.max(site.settings.excludeIps.length, site.settings.excludeParams.length),
    }));
}

function siteViolations(policy: CompiledPolicy, sites: readonly SiteValue[], target: string | undefined) {
  const matched = sites.filter((site) => inMatch(policy.declaration, site.domain));
  const longest = matched.reduce((most, site) => Math.max(most, site.longest), 0);
  if (!withinLimit(policy, { C: 0, L: longest }, matched.length))
    return [violation(policy, undefined, overLimit(`${matched.length} websites`))];
  const violations: PolicyViolation[] = [];
  for (const site of matched) {
    const broken = brokenBy(policy, { site: site.value, target: target ?? '' });
    if (broken !== false) violations.push(violation(policy, site.domain, broken === true ? undefined : broken));
  }
  return violations;
}

function planViolations(policy: CompiledPolicy, input: PolicyInput): PolicyViolation[] {
  const changes = input.plan.changes.filter((change) => inMatch(policy.declaration, change.domain));
  const values = changes.map((change) => changeValue(change, input.target));
  const longest = changes.reduce((most, change) => Math.max(most, longestList(change)), 0);
  if (!withinLimit(policy, { C: changes.length, L: longest }))
    return [violation(policy, undefined, overLimit(`${changes.length} changes`))];
  const of = (action: Change['action']) => values.filter((value) => value.action === action);
  const plan = { changes: values, creates: of('create'), updates: of('update'), deletes: of('delete') };
  const broken = brokenBy(policy, { plan, target: input.target ?? '' });
  return broken === false ? [] : [violation(policy, undefined, broken === true ? undefined : broken)];
}

/** false: the rule holds; true: it is false; a string: why it could not be evaluated. */
function brokenBy(policy: CompiledPolicy, variables: Record<string, unknown>): boolean | string {
  try {
    return policy.run(variables) !== true;
  } catch (error) {
    const { summary, message } = error as { summary?: string; message?: string };
    return `could not be evaluated: ${summary ?? String(message).split('\n')[0]}`;
  }
}

const overLimit = (size: string) =>
  `not evaluated: at this plan's size (${size}) it would take more than ${COST_LIMIT.toLocaleString('en-US')} steps`;

function violation(policy: CompiledPolicy, domain: string | undefined, error: string | undefined): PolicyViolation {
  const { name, severity, message } = policy.declaration;
  return {
    policy: name,
    kind: policy.kind,
    severity,
    ...(domain !== undefined && { domain }),
    message,
    ...(error !== undefined && { error }),
  };
}

/** Settings under websites.yaml's names; only those present (an update's `before` may lack unreadable ones). */
function settingsValue(settings: Partial<WebsiteSettings>): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) if (settings[name] !== undefined) value[CONFIG_FIELD_NAMES[name]] = settings[name];
  return value;
}

function changeValue(change: Change, target: string | undefined) {
  return {
    action: change.action,
    domain: change.domain,
    class: change.class ?? '',
    target: target ?? '',
    fields: change.action === 'delete' ? [] : change.fields.map((field) => CONFIG_FIELD_NAMES[field.field]),
    ...(change.action !== 'create' && { before: settingsValue(change.before) }),
    ...(change.action !== 'delete' && { after: settingsValue(change.after) }),
  };
}

function longestList(change: Change): number {
  const sides = [change.action === 'create' ? {} : change.before, change.action === 'delete' ? {} : change.after];
  return Math.max(0, ...sides.map((side) => Math.max(side.excludeIps?.length ?? 0, side.excludeParams?.length ?? 0)));
}
