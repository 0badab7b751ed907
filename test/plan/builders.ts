/** Small builders for planner tests: a desired site, a live site, a policy. */
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { PlanPolicy } from '../../src/model/plan.js';
import { Secret } from '../../src/model/secret.js';
import {
  type DesiredWebsite,
  defaultSettings,
  type FieldName,
  type LiveWebsite,
  PRIVACY_CODE,
  type Privacy,
  type SettingName,
  type WebsiteSettings,
} from '../../src/model/website.js';
import { policyFromConfig } from '../../src/plan/policy.js';

export function desired(
  domain: string,
  settings: Partial<WebsiteSettings> = {},
  extra: { password?: string; ignoreChanges?: FieldName[] } = {},
): DesiredWebsite {
  const site: DesiredWebsite = {
    domain,
    settings: { ...defaultSettings(), ...settings },
    ignoreChanges: extra.ignoreChanges ?? [],
  };
  if (extra.password !== undefined) site.password = new Secret(extra.password);
  return site;
}

/**
 * A live site with the service's defaults. `settings` may hold raw wire-like
 * values ("1", null, CRLF text) on purpose: the planner must canonicalise them.
 */
export function live(
  id: number,
  domain: string,
  settings: Partial<Record<SettingName, unknown>> = {},
  extra: { hasPassword?: boolean; writeOnly?: SettingName[]; createdAt?: string } = {},
): LiveWebsite {
  const all: Record<string, unknown> = { ...defaultSettings(), ...settings };
  for (const name of extra.writeOnly ?? []) delete all[name];
  const site: LiveWebsite = {
    id,
    domain,
    settings: all as Partial<WebsiteSettings>,
    hasPassword: extra.hasPassword ?? false,
  };
  if (extra.createdAt !== undefined) site.createdAt = extra.createdAt;
  site.raw = wireRecord(id, domain, all, site.hasPassword);
  return site;
}

/** The policy of a configuration that sets nothing, with `overrides`. */
export function policy(overrides: Partial<PlanPolicy> = {}): PlanPolicy {
  return { ...policyFromConfig(DEFAULT_POLICY), ...overrides };
}

/** What the service would have sent for these settings (codes, CRLF text), for --explain. */
function wireRecord(id: number, domain: string, all: Record<string, unknown>, hasPassword: boolean | undefined) {
  const code = (value: unknown): unknown => (typeof value === 'boolean' ? (value ? 1 : 0) : value);
  const text = (value: unknown): unknown => (Array.isArray(value) ? value.join('\r\n') : value);
  const privacy = all.privacy;
  const record: Record<string, unknown> = {
    id,
    domain,
    privacy: typeof privacy === 'string' && privacy in PRIVACY_CODE ? PRIVACY_CODE[privacy as Privacy] : privacy,
    email: code(all.email),
    exclude_bots: code(all.excludeBots),
    exclude_ips: text(all.excludeIps),
    favorite: all.favorite,
    password: hasPassword,
  };
  if ('excludeParams' in all) record.exclude_params = text(all.excludeParams);
  return record;
}
