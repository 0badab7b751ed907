/**
 * The configuration digest: sha256 over a canonical JSON of the resolved state,
 * secrets left out (only whether a password is set). A saved plan keeps it to
 * notice that the configuration changed since. Independent of file layout,
 * key order and website order.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../model/canonical-json.js';
import type { ConfigPolicy } from '../model/desired-state.js';
import { type DesiredWebsite, SETTING_NAMES } from '../model/website.js';

export function configDigest(input: {
  websites: readonly DesiredWebsite[];
  policy: ConfigPolicy;
  apiUrl: string | undefined;
}): string {
  // Websites as fixed-shape tuples (settings in SETTING_NAMES order): canonical without sorting keys, and fast.
  const websites = [...input.websites]
    .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
    .map((site) => {
      const tuple: unknown[] = [
        site.domain,
        SETTING_NAMES.map((name) => site.settings[name]),
        site.password !== undefined,
        [...site.ignoreChanges].sort(),
      ];
      // Each only when set, so the digest of a configuration without them is what it was before them.
      if (site.passwordVersion !== undefined) tuple.push(site.passwordVersion);
      if (site.ignoreRules !== undefined) tuple.push(site.ignoreRules.map((rule) => canonicalJson(rule)).sort());
      return tuple;
    });
  const head = canonicalJson({
    version: 1,
    apiUrl: input.apiUrl ?? null,
    policy: input.policy,
    settings: SETTING_NAMES,
  });
  const hash = createHash('sha256').update(head).update(JSON.stringify(websites));
  return `sha256:${hash.digest('hex')}`;
}
