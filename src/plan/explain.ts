/**
 * Data for `plan --explain`: for every desired site that has a live
 * counterpart (after scope and --only/--skip), each field's raw and canonical
 * value on both sides and what the planner concluded. Lets a user see why a
 * field is, or is not, a change. Pure; never holds a password value.
 */
import { byDomain, indexLiveByDomain } from '../model/domain.js';
import type { PlanPolicy } from '../model/plan.js';
import {
  type DesiredWebsite,
  FIELDS,
  type FieldName,
  type LiveWebsite,
  SETTING_NAMES,
  type SettingValue,
  sameValue,
} from '../model/website.js';
import { canonicalOf, passwordField } from './compare.js';
import { expiredRules, withoutExpired } from './ignore-rules.js';
import { type Resend, writeOnlyResend } from './policy.js';
import { scopeOf } from './scope.js';

/**
 * `write-only`: cannot be compared (the server does not return the value, or
 * it is a password, whose value is never readable). `not-managed`: a password
 * that the configuration does not set.
 */
export type ExplainOutcome = 'same' | 'change' | 'ignored' | 'write-only' | 'not-managed';

export interface FieldExplanation {
  field: FieldName;
  live: { raw: unknown; canonical: SettingValue | boolean | undefined };
  desired: { raw: unknown; canonical: SettingValue | undefined };
  outcome: ExplainOutcome;
}

export interface SiteExplanation {
  domain: string;
  id: number;
  fields: FieldExplanation[];
}

export function explain(
  desired: readonly DesiredWebsite[],
  live: readonly LiveWebsite[],
  policy: PlanPolicy,
): SiteExplanation[] {
  const scope = scopeOf(policy);
  const liveByDomain = indexLiveByDomain(live).byDomain;
  const resendOf = writeOnlyResend(policy);
  const sites: SiteExplanation[] = [];
  for (const site of desired) {
    const current = liveByDomain.get(site.domain);
    if (current === undefined || !scope.selected(site.domain)) continue;
    const compared = withoutExpired(site, expiredRules(site, policy.today));
    sites.push({ domain: site.domain, id: current.id, fields: explainSite(compared, current, resendOf(site.domain)) });
  }
  return sites.sort(byDomain);
}

function explainSite(site: DesiredWebsite, current: LiveWebsite, resend: Resend): FieldExplanation[] {
  const fields: FieldExplanation[] = SETTING_NAMES.map((name) => {
    const spec = FIELDS[name];
    const liveCanonical = canonicalOf(name, current.settings[name]);
    const desiredCanonical = canonicalOf(name, site.settings[name]);
    const outcome: ExplainOutcome =
      liveCanonical === undefined
        ? 'write-only'
        : sameValue(liveCanonical, desiredCanonical)
          ? 'same'
          : site.ignoreChanges.includes(name)
            ? 'ignored'
            : 'change';
    return {
      field: name,
      live: { raw: current.raw?.[spec.wireName], canonical: liveCanonical },
      desired: { raw: site.raw?.[spec.configName] ?? site.settings[name], canonical: desiredCanonical },
      outcome,
    };
  });
  fields.push(explainPassword(site, current, resend('password')));
  return fields;
}

/**
 * A password: only whether one is set is readable, and the desired value is
 * never shown. `canonical` is whether one is set (live; undefined when the
 * server does not say) or configured (desired); the outcome is the planner's.
 */
function explainPassword(site: DesiredWebsite, current: LiveWebsite, syncWriteOnly: boolean): FieldExplanation {
  const configured = site.password !== undefined;
  const decision = passwordField(site, current, syncWriteOnly);
  const outcome: ExplainOutcome = !configured
    ? 'not-managed'
    : decision.send
      ? 'change'
      : site.ignoreChanges.includes('password')
        ? 'ignored'
        : 'write-only';
  return {
    field: 'password',
    live: { raw: current.raw?.password, canonical: current.hasPassword },
    desired: { raw: undefined, canonical: configured },
    outcome,
  };
}
