/**
 * Field-by-field comparison of one desired site with its live counterpart,
 * and the fields a create sends. Every value goes through the one canonical
 * form per field (`FIELDS[...].canonical`) and `sameValue`, so a plan never
 * shows a change that is not a change. A live setting that is `undefined` is
 * write-only on that server: it is never compared, only re-sent on request
 * (--sync-write-only, for the fields and sites it selects), and only when the
 * configuration writes it.
 * Pure.
 */
import type { FieldChange, IgnoredDrift } from '../model/plan.js';
import {
  type DesiredWebsite,
  FIELDS,
  type FieldSpec,
  type LiveWebsite,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
  sameValue,
  type WebsiteSettings,
} from '../model/website.js';
import type { Resend } from './policy.js';

export interface SiteComparison {
  /** The fields an update sends, write-only ones marked. */
  fields: FieldChange[];
  ignored: IgnoredDrift[];
  /** Write-only values configured for this site that cannot be read back. */
  unverifiable: number;
  /** The live settings as compared: `liveSettings(live)`. */
  before: Partial<WebsiteSettings>;
  /** The desired settings as compared: `canonicalSettings(desired.settings)`. */
  after: WebsiteSettings;
}

/**
 * Canonical form of any value of `name` (undefined when unreadable), through
 * `FIELDS[name].canonical`. A value that is already canonical (the usual case:
 * both the config loader and the wire decoder canonicalise) is returned as is,
 * which keeps a 100,000-site plan fast; the result is the same either way.
 */
export function canonicalOf(name: SettingName, raw: unknown): SettingValue | undefined {
  if (raw === undefined) return undefined;
  if (FIELDS[name].isCanonical(raw)) return raw;
  return FIELDS[name].canonical(raw);
}

/** The desired settings in canonical form, in the fixed field order (object literals keep this fast at 100,000 sites). */
export function canonicalSettings(settings: WebsiteSettings): WebsiteSettings {
  const value = <K extends SettingName>(name: K): WebsiteSettings[K] =>
    (canonicalOf(name, settings[name]) ?? FIELDS[name].defaultValue) as WebsiteSettings[K];
  return {
    privacy: value('privacy'),
    email: value('email'),
    excludeBots: value('excludeBots'),
    excludeParams: value('excludeParams'),
    excludeIps: value('excludeIps'),
    favorite: value('favorite'),
  };
}

/** The readable live settings in canonical form, in the fixed field order (write-only ones absent). */
export function liveSettings(live: LiveWebsite): Partial<WebsiteSettings> {
  const out: Partial<Record<SettingName, SettingValue>> = {};
  for (const name of SETTING_NAMES) {
    const value = canonicalOf(name, live.settings[name]);
    if (value !== undefined) out[name] = value;
  }
  return out as Partial<WebsiteSettings>;
}

/** FIELDS in SETTING_NAMES order. */
const FIELD_SPECS: readonly FieldSpec[] = SETTING_NAMES.map((name) => FIELDS[name]);

/**
 * Whether `compareSite` would find nothing at all (no change, no ignored
 * drift, nothing unverifiable), decided without allocating: no password
 * configured, and every setting readable, equal on both sides and canonical
 * (so canonicalising either would change nothing). Most sites of a large plan.
 */
export function inSync(desired: DesiredWebsite, live: LiveWebsite): boolean {
  if (desired.password !== undefined) return false;
  // An index loop over the specs, no helper call: the cheapest form while the code is cold (once per site and process).
  for (let i = 0; i < FIELD_SPECS.length; i++) {
    const spec = FIELD_SPECS[i] as FieldSpec;
    const seen = live.settings[spec.name];
    if (seen === undefined || !sameValue(seen, desired.settings[spec.name]) || !spec.isCanonical(seen)) return false;
  }
  return true;
}

/**
 * Compares one desired site with its live counterpart, field by field (a site
 * `inSync` need not be compared), and keeps both sides' canonical settings for
 * the update: each value is canonicalised once.
 */
export function compareSite(desired: DesiredWebsite, live: LiveWebsite, resend: Resend): SiteComparison {
  const fields: FieldChange[] = [];
  const ignored: IgnoredDrift[] = [];
  let unverifiable = 0;
  const befores: Partial<Record<SettingName, SettingValue>> = {};
  const afters: Partial<Record<SettingName, SettingValue>> = {};
  for (const name of SETTING_NAMES) {
    const ignoredField = desired.ignoreChanges.length > 0 && desired.ignoreChanges.includes(name);
    const after = canonicalOf(name, desired.settings[name]) ?? FIELDS[name].defaultValue;
    const before = canonicalOf(name, live.settings[name]);
    afters[name] = after;
    if (before !== undefined) befores[name] = before;
    if (before === undefined) {
      if (ignoredField) continue;
      unverifiable += 1;
      // Only a value the user wrote is re-sent: the service's default is no claim about the live value.
      if (resend(name) && isWritten(desired, name)) fields.push({ field: name, after, writeOnly: true });
      continue;
    }
    if (sameValue(before, after)) continue;
    if (ignoredField) ignored.push({ field: name, before, after });
    else fields.push({ field: name, before, after });
  }
  const password = passwordField(desired, live, resend('password'));
  if (password.counted) unverifiable += 1;
  if (password.send) fields.push({ field: 'password', writeOnly: true });
  return {
    fields,
    ignored,
    unverifiable,
    before: befores as Partial<WebsiteSettings>,
    after: afters as WebsiteSettings,
  };
}

/**
 * Whether the configuration writes `name` for this site (its own entry or
 * `defaults`). A site built without `raw` (a library caller) counts every
 * setting as written.
 */
export function isWritten(desired: DesiredWebsite, name: SettingName): boolean {
  return desired.raw === undefined || desired.raw[FIELDS[name].configName] !== undefined;
}

/**
 * The password: the only thing readable about it is whether one is set. It is
 * sent when the site is (or becomes) password-protected and the live one has
 * none, even when `password` is in ignore_changes: ignoring means "never
 * re-send or rotate", not "leave a site the service refuses". Otherwise only
 * with --sync-write-only, and never when ignored.
 */
export function passwordField(
  desired: DesiredWebsite,
  live: LiveWebsite,
  syncWriteOnly: boolean,
): { send: boolean; counted: boolean } {
  if (desired.password === undefined) return { send: false, counted: false };
  const ignoredPassword = desired.ignoreChanges.includes('password');
  const missing = protectedAfter(desired, live) && !hasPassword(live, ignoredPassword);
  if (ignoredPassword) return { send: missing, counted: missing };
  return { send: syncWriteOnly || missing, counted: true };
}

/** Privacy after the update: the live one when privacy is ignored (and readable), else the desired one. */
function protectedAfter(desired: DesiredWebsite, live: LiveWebsite): boolean {
  const desiredPrivacy = canonicalOf('privacy', desired.settings.privacy);
  if (!desired.ignoreChanges.includes('privacy')) return desiredPrivacy === 'password';
  return (canonicalOf('privacy', live.settings.privacy) ?? desiredPrivacy) === 'password';
}

/**
 * Whether the live site has a password. A server that does not say is taken
 * as "none" (the password is sent), except for an ignored password on a site
 * that is already password-protected: it has one, or the service would refuse it.
 */
function hasPassword(live: LiveWebsite, ignoredPassword: boolean): boolean {
  if (live.hasPassword !== undefined) return live.hasPassword;
  return ignoredPassword && canonicalOf('privacy', live.settings.privacy) === 'password';
}

/** Every field a create sends; settings the server never returns are marked write-only. */
export function createFields(
  desired: DesiredWebsite,
  after: WebsiteSettings,
  serverWriteOnly: ReadonlySet<SettingName>,
): FieldChange[] {
  const fields: FieldChange[] = SETTING_NAMES.map((name) =>
    serverWriteOnly.has(name)
      ? { field: name, after: after[name], writeOnly: true }
      : { field: name, after: after[name] },
  );
  if (desired.password !== undefined) fields.push({ field: 'password', writeOnly: true });
  return fields;
}

/** Settings that this server does not return (undefined on a live record). */
export function writeOnlySettings(live: readonly LiveWebsite[]): Set<SettingName> {
  const names = new Set<SettingName>();
  for (const site of live) {
    for (const name of SETTING_NAMES) if (site.settings[name] === undefined) names.add(name);
    if (names.size === SETTING_NAMES.length) break;
  }
  return names;
}
