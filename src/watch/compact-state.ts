/**
 * The desired websites as a long-running watch keeps them: a fleet holds
 * millions, so each site keeps only what planning reads. Identical settings,
 * ignore lists and "which fields the file writes" are shared between sites
 * (the planner never mutates its input), positions are dropped (watch never
 * shows them), and `raw` keeps only its keys (compare.ts's isWritten asks
 * whether a field is written, never its value as written).
 */
import type { DesiredWebsite } from '../model/website.js';

export class SiteCompactor {
  readonly #shared = new Map<string, unknown>();

  compact(sites: readonly DesiredWebsite[]): DesiredWebsite[] {
    return sites.map((site) => {
      const kept: DesiredWebsite = {
        domain: site.domain,
        settings: this.#share(site.settings),
        ignoreChanges: this.#share(site.ignoreChanges),
      };
      if (site.password !== undefined) kept.password = site.password;
      if (site.passwordVersion !== undefined) kept.passwordVersion = site.passwordVersion;
      if (site.ignoreRules !== undefined) kept.ignoreRules = site.ignoreRules;
      if (site.raw !== undefined)
        kept.raw = this.#share(Object.fromEntries(Object.keys(site.raw).map((key) => [key, true])));
      return kept;
    });
  }

  /** One object per distinct value (by its JSON: settings and lists of plain values). */
  #share<T>(value: T): T {
    const key = JSON.stringify(value);
    const known = this.#shared.get(key);
    if (known !== undefined) return known as T;
    this.#shared.set(key, value);
    return value;
  }
}
