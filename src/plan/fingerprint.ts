/**
 * Content digests: of one live website (a saved plan's staleness check), and of
 * a whole plan (shown in Markdown so a reviewer can tell two plans apart).
 * Canonical JSON (model/canonical-json.ts) sorts object keys, so a digest
 * depends on content only.
 * Pure (node:crypto hashing has no side effects).
 */
import { hash } from 'node:crypto';
import { canonicalJsonOfData } from '../model/canonical-json.js';
import type { Plan } from '../model/plan.js';
import type { LiveWebsite, SettingName, WebsiteSettings } from '../model/website.js';

/** One-shot `hash` (Node ≥ 20.12): a fraction of createHash's cost, for the fingerprint of each of thousands of changes. */
function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * Digest of what the planner saw of one live site: id, domain, the readable
 * settings and whether a password is set. Timestamps are left out so that a
 * no-op touch by the service does not make a plan stale.
 */
export function fingerprintLive(live: LiveWebsite): string {
  const { settings } = live;
  // Keys in sorted order, so this equals canonicalJson(...); object literals (the type requires every setting) stay
  // fast at 100,000 sites.
  const seen: { [K in SettingName]: WebsiteSettings[K] | undefined } = {
    email: settings.email,
    excludeBots: settings.excludeBots,
    excludeIps: settings.excludeIps,
    excludeParams: settings.excludeParams,
    favorite: settings.favorite,
    privacy: settings.privacy,
  };
  const canonical = JSON.stringify({
    domain: live.domain,
    hasPassword: live.hasPassword ?? null,
    id: live.id,
    settings: seen,
  });
  return `sha256:${sha256(canonical)}`;
}

/** Digest of a plan's data: equal plans, equal digests. */
export function planDigest(plan: Plan): string {
  return `sha256:${sha256(canonicalJsonOfData(plan))}`;
}
