/**
 * Expiring ignore rules: an `ignore_changes` entry with `until` ignores its
 * field through that day (UTC); from the next day the planner compares the
 * field again and the plan notes the expiry. Today is an input (the policy's
 * `today`), so planning stays pure. Without it nothing expires.
 */
import type { Note } from '../model/plan.js';
import type { DesiredWebsite, FieldName, IgnoreRule } from '../model/website.js';

/** The site's rules whose `until` is before `today` (dates as YYYY-MM-DD compare as text). */
export function expiredRules(site: DesiredWebsite, today: string | undefined): IgnoreRule[] {
  if (today === undefined || site.ignoreRules === undefined) return [];
  return site.ignoreRules.filter((rule) => rule.until !== undefined && rule.until < today);
}

/** The site as it is compared: the fields of expired rules are no longer ignored. */
export function withoutExpired(site: DesiredWebsite, expired: readonly IgnoreRule[]): DesiredWebsite {
  if (expired.length === 0) return site;
  const fields = new Set<FieldName>(expired.map((rule) => rule.field));
  return { ...site, ignoreChanges: site.ignoreChanges.filter((field) => !fields.has(field)) };
}

/** Collects expired rules by (field, until, reason): one note each, naming its sites. */
export class ExpiredRules {
  readonly #groups = new Map<string, { rule: IgnoreRule; domains: string[] }>();

  /** The site as compared on `today`: its expired rules collected here, their fields no longer ignored. */
  compared(site: DesiredWebsite, today: string | undefined): DesiredWebsite {
    if (site.ignoreRules === undefined) return site; // the usual site: one call per site, nothing more
    const expired = expiredRules(site, today);
    this.#add(site.domain, expired);
    return withoutExpired(site, expired);
  }

  #add(domain: string, rules: readonly IgnoreRule[]): void {
    for (const rule of rules) {
      const key = JSON.stringify([rule.field, rule.until, rule.reason ?? null]);
      const group = this.#groups.get(key);
      if (group) group.domains.push(domain);
      else this.#groups.set(key, { rule, domains: [domain] });
    }
  }

  notes(): Note[] {
    const byKey = [...this.#groups].sort(([a], [b]) => (a < b ? -1 : 1));
    return byKey.map(([, { rule, domains }]) => {
      const note: Note = { kind: 'ignore_expired', domains: [...domains].sort(), field: rule.field };
      if (rule.until !== undefined) note.until = rule.until;
      if (rule.reason !== undefined) note.reason = rule.reason;
      return note;
    });
  }
}
