/**
 * Field-by-field comparison of one desired site with its live counterpart,
 * and the fields a create sends. Every value goes through the one canonical
 * form per field (`FIELDS[...].canonical`) and `sameValue`, so a plan never
 * shows a change that is not a change. A live setting that is `undefined` is
 * write-only on that server: it is never compared, only (re-)sent on request.
 * Pure.
 */
import type { FieldChange, IgnoredDrift } from '../model/plan.js';
import {
  type DesiredWebsite,
  FIELDS,
  type LiveWebsite,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
  sameValue,
  type WebsiteSettings,
} from '../model/website.js';

export interface SiteComparison {
  /** The fields an update sends, write-only ones marked. */
  fields: FieldChange[];
  ignored: IgnoredDrift[];
  /** Write-only values configured for this site that cannot be read back. */
  unverifiable: number;
}

/**
 * Canonical form of any value of `name` (undefined when unreadable), through
 * `FIELDS[name].canonical`. A value that is already canonical (the usual case:
 * both the config loader and the wire decoder canonicalise) is returned as is,
 * which keeps a 100,000-site plan fast; the result is the same either way.
 */
export function canonicalOf(name: SettingName, raw: unknown): SettingValue | undefined {
  if (raw === undefined) return undefined;
  if (isCanonical(name, raw)) return raw;
  return FIELDS[name].canonical(raw);
}

function isCanonical(name: SettingName, raw: unknown): raw is SettingValue {
  switch (name) {
    case 'privacy':
      return raw === 'public' || raw === 'private' || raw === 'password';
    case 'email':
    case 'excludeBots':
    case 'favorite':
      return typeof raw === 'boolean';
    case 'excludeParams':
      return isCanonicalList(raw, false);
    case 'excludeIps':
      return isCanonicalList(raw, true);
  }
}

/** Sorted, unique, trimmed, non-empty strings (and lowercase for IPs): what `toLineSet` produces. */
const UPPERCASE = /[A-Z]/;

function isCanonicalList(raw: unknown, lowercase: boolean): boolean {
  if (!Array.isArray(raw)) return false;
  let previous: string | undefined;
  for (const entry of raw) {
    if (typeof entry !== 'string' || entry === '' || entry.trim() !== entry) return false;
    if (lowercase && UPPERCASE.test(entry)) return false;
    if (previous !== undefined && !(previous < entry)) return false;
    previous = entry;
  }
  return true;
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

/**
 * Compares one desired site with its live counterpart, field by field, without
 * building settings objects (a plan of 100,000 sites is mostly unchanged ones).
 */
export function compareSite(desired: DesiredWebsite, live: LiveWebsite, syncWriteOnly: boolean): SiteComparison {
  const fields: FieldChange[] = [];
  const ignored: IgnoredDrift[] = [];
  let unverifiable = 0;
  for (const name of SETTING_NAMES) {
    const ignoredField = desired.ignoreChanges.length > 0 && desired.ignoreChanges.includes(name);
    const after = canonicalOf(name, desired.settings[name]) ?? FIELDS[name].defaultValue;
    const before = canonicalOf(name, live.settings[name]);
    if (before === undefined) {
      if (ignoredField) continue;
      unverifiable += 1;
      if (syncWriteOnly) fields.push({ field: name, after, writeOnly: true });
      continue;
    }
    if (sameValue(before, after)) continue;
    if (ignoredField) ignored.push({ field: name, before, after });
    else fields.push({ field: name, before, after });
  }
  if (desired.password !== undefined && !desired.ignoreChanges.includes('password')) {
    unverifiable += 1;
    // The only thing readable about a password is whether one is set.
    const privacy = canonicalOf('privacy', desired.settings.privacy);
    const missing = privacy === 'password' && live.hasPassword !== true;
    if (syncWriteOnly || missing) fields.push({ field: 'password', writeOnly: true });
  }
  return { fields, ignored, unverifiable };
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
