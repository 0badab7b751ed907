/**
 * The field-by-field differences a check keeps for the status page, PURE: the
 * plan's own change of each site not in sync (what the configuration says,
 * what is live) and, for pending and conflicting fields, what the baseline
 * said. Bounded: the first DIFFERENCES_KEPT sites of each class (by domain)
 * keep their change; the others are counted and named only (port.ts `sites`).
 * No secret: a plan never holds a password value.
 */
import { byDomain } from '../model/domain.js';
import type { Baseline, Change, ChangeClass, Plan } from '../model/plan.js';
import type { SettingName, SettingValue } from '../model/website.js';
import { canonicalSettings } from '../plan/compare.js';

/** Sites of one class per target whose change is kept (a first configuration makes every site pending). */
export const DIFFERENCES_KEPT = 50;

export interface SiteDifference {
  domain: string;
  class: ChangeClass;
  /** The plan's change, as the JSON plan carries it (docs/plan-format.md). */
  change: Change;
  /**
   * A pending or conflicting change, classified against a baseline: whether the
   * baseline listed the site and, per pending or conflicting field, its value there.
   */
  baseline?: { listed: boolean; fields: Partial<Record<SettingName, SettingValue>> };
}

export function differencesOf(plan: Plan, baseline: Baseline | undefined): SiteDifference[] {
  const at = baseline === undefined ? undefined : new Map(baseline.websites.map((site) => [site.domain, site]));
  const kept: Record<ChangeClass, number> = { pending: 0, drift: 0, conflict: 0 };
  const sorted = [...plan.changes].sort(byDomain);
  const differences: SiteDifference[] = [];
  for (const change of sorted) {
    const changeClass = change.class ?? 'drift';
    if (kept[changeClass]++ >= DIFFERENCES_KEPT) continue;
    const difference: SiteDifference = { domain: change.domain, class: changeClass, change };
    if (at !== undefined && changeClass !== 'drift') {
      const site = at.get(change.domain);
      const settings = site === undefined ? undefined : canonicalSettings(site.settings);
      const fields: Partial<Record<SettingName, SettingValue>> = {};
      if (settings !== undefined && change.action === 'update')
        for (const field of change.fields)
          if (field.field !== 'password' && field.class !== undefined && field.class !== 'drift')
            fields[field.field] = settings[field.field];
      difference.baseline = { listed: site !== undefined, fields };
    }
    differences.push(difference);
  }
  return differences;
}
