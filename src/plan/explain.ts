/**
 * Data for `plan --explain`: for every desired site that has a live
 * counterpart (after scope and --only/--skip), each field's raw and canonical
 * value on both sides and what the planner concluded. Lets a user see why a
 * field is, or is not, a change. Pure; never holds a password value.
 */
import { byDomain, canonicalDomain } from '../model/domain.js';
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
import { canonicalOf } from './compare.js';
import { scopeOf } from './scope.js';

export type ExplainOutcome = 'same' | 'change' | 'ignored' | 'write-only';

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
  const liveByDomain = new Map(live.map((site) => [canonicalDomain(site.domain), site]));
  const sites: SiteExplanation[] = [];
  for (const site of desired) {
    const current = liveByDomain.get(site.domain);
    if (current === undefined || !scope.selected(site.domain)) continue;
    sites.push({ domain: site.domain, id: current.id, fields: explainSite(site, current) });
  }
  return sites.sort(byDomain);
}

function explainSite(site: DesiredWebsite, current: LiveWebsite): FieldExplanation[] {
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
  // A password: only whether one is set is readable, and the desired value is never shown.
  fields.push({
    field: 'password',
    live: { raw: current.raw?.password, canonical: current.hasPassword },
    desired: { raw: site.password === undefined ? undefined : '(write-only)', canonical: undefined },
    outcome: 'write-only',
  });
  return fields;
}
