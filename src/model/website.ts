/**
 * The website: its fields, their friendly and wire names, defaults, and the ONE
 * canonical form per field that every comparison uses. Config loading, the wire
 * decoder and the planner all normalise through `FIELDS`, so "1" vs 1, null vs
 * 0, CRLF vs LF and list order can never show up as a change. Imports only
 * other model modules; no I/O.
 */
import type { Secret } from './secret.js';

export type Privacy = 'public' | 'private' | 'password';
export const PRIVACY_VALUES: readonly Privacy[] = ['public', 'private', 'password'];
export const PRIVACY_CODE: Readonly<Record<Privacy, 0 | 1 | 2>> = { public: 0, private: 1, password: 2 };

/** The comparable settings of a website, in canonical form. */
export interface WebsiteSettings {
  privacy: Privacy;
  email: boolean;
  excludeBots: boolean;
  /** Sorted, unique, no blank entries; live entries keep their spaces (the tracker does not trim). */
  excludeParams: string[];
  /** Sorted, unique, no blank entries; live entries keep their spaces (the tracker does not trim). */
  excludeIps: string[];
  favorite: boolean;
}

export type SettingName = keyof WebsiteSettings;
/** Every field a user can manage; `password` is write-only and never compared. */
export type FieldName = SettingName | 'password';
export type SettingValue = WebsiteSettings[SettingName];

export interface FieldSpec<K extends SettingName = SettingName> {
  name: K;
  /** Name in websites.yaml (the API's name, so users recognise it). */
  configName: string;
  /** Form field / JSON key on the wire. */
  wireName: string;
  /** The service's documented default on create. */
  defaultValue: WebsiteSettings[K];
  /** Any raw representation (config, wire, "1"/1/null, CRLF text, arrays) → canonical, or undefined if unreadable. */
  canonical(raw: unknown): WebsiteSettings[K] | undefined;
  /** Whether `raw` is already in canonical form (what `canonical` returns): a fast path, same result. */
  isCanonical(raw: unknown): raw is WebsiteSettings[K];
  /** Short human rendering of a canonical value. */
  format(value: WebsiteSettings[K]): string;
  /** Short human rendering of any value of this field (canonicalised first); `(unknown)` when absent or unreadable. */
  formatValue(value: unknown): string;
}

/** Booleans, 0/1, "true"/"false", and null (off). */
function toFlag(raw: unknown): boolean | undefined {
  if (raw === null) return false; // the real service stores NULL, which behaves as off
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'number') return raw === 1 ? true : raw === 0 ? false : undefined;
  if (typeof raw === 'string') {
    const text = raw.trim().toLowerCase();
    if (text === '1' || text === 'true') return true;
    if (text === '0' || text === 'false' || text === '') return false;
  }
  return undefined;
}

/**
 * An integer column the service tests with PHP truthiness (`exclude_bots`):
 * the real service accepts any integer, and every non-zero one is on. Other
 * representations as `toFlag`.
 */
function toIntegerFlag(raw: unknown): boolean | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw !== 0 : undefined;
  if (typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw)) return !/^\s*[-+]?0+\s*$/.test(raw);
  return toFlag(raw);
}

/**
 * `email`: an integer column the real service accepts any integer into, but
 * it sends reports only to sites `WHERE email = 1`: on is exactly 1, any other
 * integer (`5`, `-1`) is off, and a plan that wants reports sends 1 again.
 */
function toReportFlag(raw: unknown): boolean | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw === 1 : undefined;
  if (typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw)) return Number(raw) === 1;
  return toFlag(raw);
}

function toPrivacy(raw: unknown): Privacy | undefined {
  if (raw === null) return 'public'; // real service: NULL privacy behaves as public
  if (typeof raw === 'string' && (PRIVACY_VALUES as readonly string[]).includes(raw.trim().toLowerCase())) {
    return raw.trim().toLowerCase() as Privacy;
  }
  const code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  return PRIVACY_VALUES[code];
}

/**
 * One entry per line (\r\n, \r or \n) or an array; de-duplicated, sorted,
 * blank lines dropped. Entries are NOT trimmed: the service's tracker splits on
 * newlines without trimming, so a live ` 10.0.0.0/8 ` excludes nothing and is a
 * real difference from `10.0.0.0/8`. What a person writes is trimmed before
 * (`trimListEntries`, config side).
 */
export function toLineSet(raw: unknown): string[] | undefined {
  if (raw === null) return [];
  let entries: unknown[];
  if (typeof raw === 'string') entries = raw.split(/\r\n|\r|\n/);
  else if (Array.isArray(raw)) entries = raw;
  else return undefined;
  const set = new Set<string>();
  for (const entry of entries) {
    if (typeof entry !== 'string' && typeof entry !== 'number') return undefined;
    const text = String(entry);
    if (text.trim() !== '') set.add(text);
  }
  return [...set].sort();
}

/** A list as a person wrote it (array or lines), each entry trimmed: the config side of `toLineSet`. */
export function trimListEntries(raw: unknown): unknown {
  if (typeof raw === 'string') return raw.split(/\r\n|\r|\n/).map((line) => line.trim());
  if (Array.isArray(raw)) return raw.map((entry) => (typeof entry === 'string' ? entry.trim() : entry));
  return raw;
}

/**
 * One `exclude_ips` entry: an IPv6 address (with an optional `/prefix`) in its
 * compressed lowercase form (`2001:DB8:0:0::1` → `2001:db8::1`), as the WHATWG
 * URL parser writes it. IPv4 addresses and anything that is not an IP stay as
 * written: the service stores lines as they come, without validating them.
 */
export function canonicalIpEntry(entry: string): string {
  if (!entry.includes(':')) return entry;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  try {
    const host = new URL(`http://[${address}]/`).hostname;
    return `${host.slice(1, -1)}${slash === -1 ? '' : entry.slice(slash)}`;
  } catch {
    return entry; // not an IPv6 address (a zone id, a typo): kept as written
  }
}

/** IP entries in canonical form (see canonicalIpEntry), then de-duplicated and sorted. */
function toIpSet(raw: unknown): string[] | undefined {
  const set = toLineSet(raw);
  return set && [...new Set(set.map(canonicalIpEntry))].sort();
}

/** The service's text columns (`exclude_params`, `exclude_ips`) hold at most this many bytes; longer answers 500. */
export const MAX_FIELD_BYTES = 65_535;

/** The size in bytes of a list setting as sent (one entry per line, UTF-8); 0 for other settings. */
export function sentBytes(value: unknown): number {
  return Array.isArray(value) ? Buffer.byteLength(value.join('\n'), 'utf8') : 0;
}

/** The list settings among `settings` at least `minBytes` long when sent, largest first. */
export function largeFields(
  settings: Partial<WebsiteSettings>,
  minBytes: number,
): { name: SettingName; bytes: number }[] {
  return (['excludeParams', 'excludeIps'] as const)
    .map((name) => ({ name, bytes: sentBytes(settings[name]) }))
    .filter((field) => field.bytes >= minBytes)
    .sort((a, b) => b.bytes - a.bytes);
}

const formatFlag = (value: boolean): string => (value ? 'true' : 'false');
const formatList = (value: string[]): string => (value.length === 0 ? '[]' : `[${value.join(', ')}]`);
const isFlag = (raw: unknown): raw is boolean => typeof raw === 'boolean';
const isPrivacy = (raw: unknown): raw is Privacy => raw === 'public' || raw === 'private' || raw === 'password';

/** Sorted, unique, non-blank strings (IPv6 compressed and lowercase for IPs): what `toLineSet` / `toIpSet` produce. */
function isCanonicalList(raw: unknown, ips: boolean): raw is string[] {
  if (!Array.isArray(raw)) return false;
  let previous: string | undefined;
  for (const entry of raw) {
    if (typeof entry !== 'string' || entry.trim() === '') return false;
    if (ips && canonicalIpEntry(entry) !== entry) return false;
    if (previous !== undefined && !(previous < entry)) return false;
    previous = entry;
  }
  return true;
}

/** A field's spec with `formatValue` derived from its canonical form and format. */
function field<K extends SettingName>(spec: Omit<FieldSpec<K>, 'formatValue'>): FieldSpec<K> {
  return {
    ...spec,
    formatValue(value: unknown): string {
      const canonical = value === undefined ? undefined : spec.isCanonical(value) ? value : spec.canonical(value);
      return canonical === undefined ? '(unknown)' : spec.format(canonical);
    },
  };
}

/** Every setting; the type fails to compile when one is missing. Key order is SETTING_NAMES order. */
export const FIELDS: { readonly [K in SettingName]: FieldSpec<K> } = {
  privacy: field({
    name: 'privacy',
    configName: 'privacy',
    wireName: 'privacy',
    defaultValue: 'private',
    canonical: toPrivacy,
    isCanonical: isPrivacy,
    format: (value) => value,
  }),
  email: field({
    name: 'email',
    configName: 'email',
    wireName: 'email',
    defaultValue: false,
    canonical: toReportFlag,
    isCanonical: isFlag,
    format: formatFlag,
  }),
  excludeBots: field({
    name: 'excludeBots',
    configName: 'exclude_bots',
    wireName: 'exclude_bots',
    defaultValue: true,
    canonical: toIntegerFlag,
    isCanonical: isFlag,
    format: formatFlag,
  }),
  excludeParams: field({
    name: 'excludeParams',
    configName: 'exclude_params',
    wireName: 'exclude_params',
    defaultValue: [],
    canonical: toLineSet,
    isCanonical: (raw): raw is string[] => isCanonicalList(raw, false),
    format: formatList,
  }),
  excludeIps: field({
    name: 'excludeIps',
    configName: 'exclude_ips',
    wireName: 'exclude_ips',
    defaultValue: [],
    canonical: toIpSet,
    isCanonical: (raw): raw is string[] => isCanonicalList(raw, true),
    format: formatList,
  }),
  favorite: field({
    name: 'favorite',
    configName: 'favorite',
    wireName: 'favorite',
    defaultValue: false,
    canonical: toFlag,
    isCanonical: isFlag,
    format: formatFlag,
  }),
};

/** Settings in a fixed order (FIELDS' key order): the order of plan lines and of exported YAML. Complete by construction. */
export const SETTING_NAMES: readonly SettingName[] = Object.keys(FIELDS) as SettingName[];

/** Names in websites.yaml for every managed field (settings plus password), in SETTING_NAMES order. */
export const CONFIG_FIELD_NAMES: Readonly<Record<FieldName, string>> = {
  ...(Object.fromEntries(SETTING_NAMES.map((name) => [name, FIELDS[name].configName])) as Record<SettingName, string>),
  password: 'password',
};

export function fieldFromConfigName(name: string): FieldName | undefined {
  return (Object.keys(CONFIG_FIELD_NAMES) as FieldName[]).find((field) => CONFIG_FIELD_NAMES[field] === name);
}

export function defaultSettings(): WebsiteSettings {
  return {
    privacy: FIELDS.privacy.defaultValue,
    email: FIELDS.email.defaultValue,
    excludeBots: FIELDS.excludeBots.defaultValue,
    excludeParams: [],
    excludeIps: [],
    favorite: FIELDS.favorite.defaultValue,
  };
}

/** Equality of two canonical values of one field. */
export function sameValue(a: SettingValue | undefined, b: SettingValue | undefined): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  // A loop, not every(): no closure per call, for each list field of 100,000 sites.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where a value came from in websites.yaml, for messages. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * An `ignore_changes` entry written as a rule: why, and until when. `until`
 * is the last day (YYYY-MM-DD, UTC) the field is ignored; from the next day it
 * is compared again and the plan notes the expiry.
 */
export interface IgnoreRule {
  field: FieldName;
  reason?: string;
  until?: string;
}

/** One website as the configuration wants it. */
export interface DesiredWebsite {
  /** Canonical domain (see domain.ts): the identity. */
  domain: string;
  settings: WebsiteSettings;
  /** Resolved from the environment; write-only, never compared, never printed. */
  password?: Secret;
  /** `password_version`: a change of it since the git baseline re-sends the password (a rotation). */
  passwordVersion?: string;
  /** Fields this tool never changes on this site (every entry of ignore_changes, expired or not). */
  ignoreChanges: FieldName[];
  /** The entries of ignoreChanges written as rules (with a reason or an until), one per field at most. */
  ignoreRules?: IgnoreRule[];
  source?: SourceLocation;
  /** The values as written in websites.yaml (config names; never a password), for --explain. */
  raw?: Readonly<Record<string, unknown>>;
}

/** One website as the service reports it. */
export interface LiveWebsite {
  id: number;
  domain: string;
  /** A setting is absent when the server does not return it (write-only there). */
  settings: Partial<WebsiteSettings>;
  /** Whether a password is set; undefined when the server does not say. */
  hasPassword: boolean | undefined;
  createdAt?: string;
  updatedAt?: string;
  /** The record as received (password flag only, never a value), for --explain. */
  raw?: Readonly<Record<string, unknown>>;
}
