/**
 * One block of website settings (`defaults:` or one `websites:` entry) → canonical
 * partial settings, the resolved password and ignore_changes, through the
 * model's FIELDS (the one canonical form per field). Reports what the schema
 * cannot: IP syntax, unset environment variables, password length.
 */
import type { ConfigProblem } from '../model/desired-state.js';
import { Secret, UnresolvedSecret } from '../model/secret.js';
import {
  FIELDS,
  type FieldName,
  fieldFromConfigName,
  type IgnoreRule,
  largeFields,
  MAX_FIELD_BYTES,
  SETTING_NAMES,
  type SettingName,
  trimListEntries,
  type WebsiteSettings,
} from '../model/website.js';
import { type Env, missingMessage, referenceName, refusedVariable, type SecretMode } from './env.js';
import { isIpOrCidr } from './ip.js';
import { type DataPath, problemAt, type SourceFile } from './positions.js';

/**
 * Each setting's names and canonical form, looked up once. `list`: what a
 * person writes in a list setting is trimmed per entry (live lines are not).
 */
const SETTING_SPECS = SETTING_NAMES.map((name) => ({
  name,
  configName: FIELDS[name].configName,
  canonical: FIELDS[name].canonical as (raw: unknown) => WebsiteSettings[SettingName] | undefined,
  list: name === 'excludeParams' || name === 'excludeIps',
}));

/** A block without ignore_changes: nothing to ignore (shared, never changed). */
const NO_FIELDS: readonly FieldName[] = [];
const NO_RULES: readonly WrittenRule[] = [];
const NO_LARGE_FIELDS: readonly { name: SettingName; bytes: number }[] = [];

/** The service's limit on a website password. */
export const MAX_PASSWORD_LENGTH = 128;

export interface ResolvedBlock {
  settings: Partial<WebsiteSettings>;
  password?: Secret;
  ignoreChanges: readonly FieldName[];
  /** The ignore_changes entries written as rules, with where each is written (for validate's expiry warning). */
  ignoreRules: readonly WrittenRule[];
}

export interface WrittenRule {
  rule: IgnoreRule;
  source: SourceFile;
  path: DataPath;
}

/**
 * `withPassword: false` leaves `password` to the caller (a website resolves
 * it only when it sends one). Paths for messages are built only for a value
 * that is there: 10,000 sites of one `domain` line each allocate nothing else.
 */
export function resolveBlock(
  source: SourceFile,
  path: DataPath,
  block: Readonly<Record<string, unknown>>,
  env: Env,
  problems: ConfigProblem[],
  secrets: SecretMode = 'resolve',
  withPassword = true,
): ResolvedBlock {
  const settings: Partial<WebsiteSettings> = {};
  let lists = false;
  for (const spec of SETTING_SPECS) {
    const raw = block[spec.configName];
    if (raw === undefined) continue;
    const value = spec.canonical(spec.list ? trimListEntries(raw) : raw);
    if (value === undefined) continue;
    (settings as Record<SettingName, unknown>)[spec.name] = value;
    lists ||= spec.list;
  }
  const ips = block[FIELDS.excludeIps.configName];
  if (ips !== undefined) problems.push(...ipProblems(source, [...path, FIELDS.excludeIps.configName], ips));
  for (const { name, bytes } of lists ? largeFields(settings, MAX_FIELD_BYTES + 1) : NO_LARGE_FIELDS) {
    const message = `is ${bytes.toLocaleString('en-US')} bytes as sent, more than the ${MAX_FIELD_BYTES.toLocaleString('en-US')} bytes the service stores`;
    problems.push(problemAt(source, [...path, FIELDS[name].configName], message));
  }
  const resolved: ResolvedBlock =
    block.ignore_changes === undefined
      ? { settings, ignoreChanges: NO_FIELDS, ignoreRules: NO_RULES }
      : { settings, ...ignoreList(source, [...path, 'ignore_changes'], block.ignore_changes, problems) };
  if (!withPassword || block.password === undefined) return resolved;
  const password = resolvePassword(source, [...path, 'password'], block.password, env, problems, secrets);
  if (password) resolved.password = password;
  return resolved;
}

/**
 * ignore_changes: field names, or rules `{ field, reason?, until? }` (the
 * schema checks the shape). One entry per field; `until` must be a real day.
 */
function ignoreList(
  source: SourceFile,
  path: DataPath,
  raw: unknown,
  problems: ConfigProblem[],
): { ignoreChanges: FieldName[]; ignoreRules: WrittenRule[] } {
  const ignoreChanges: FieldName[] = [];
  const ignoreRules: WrittenRule[] = [];
  if (!Array.isArray(raw)) return { ignoreChanges, ignoreRules };
  raw.forEach((entry: unknown, index) => {
    const written = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : { field: entry };
    const field = fieldFromConfigName(String(written.field));
    if (field === undefined) return; // the schema reports it
    if (ignoreChanges.includes(field)) {
      // Identical entries are the schema's (uniqueItems); `email` next to `{ field: email, ... }` is ours.
      const identical = raw.slice(0, index).some((earlier) => JSON.stringify(earlier) === JSON.stringify(entry));
      if (!identical) {
        problems.push(problemAt(source, [...path, index], `names ${String(written.field)} again: one entry per field`));
      }
      return;
    }
    ignoreChanges.push(field);
    if (written === entry) {
      const rule: IgnoreRule = { field };
      if (typeof written.reason === 'string') rule.reason = written.reason;
      if (typeof written.until === 'string') {
        if (isCalendarDate(written.until)) rule.until = written.until;
        // A wrong shape is the schema's message; a well-formed day that does not exist is ours.
        else if (/^\d{4}-\d{2}-\d{2}$/.test(written.until))
          problems.push(problemAt(source, [...path, index, 'until'], `${written.until} is not a calendar date`));
      }
      ignoreRules.push({ rule, source, path: [...path, index] });
    }
  });
  return { ignoreChanges, ignoreRules };
}

/** YYYY-MM-DD naming a day that exists (2026-02-30 does not). */
function isCalendarDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

function ipProblems(source: SourceFile, path: DataPath, raw: unknown): ConfigProblem[] {
  if (Array.isArray(raw)) {
    return raw.flatMap((entry, i) =>
      typeof entry === 'string' && entry.trim() !== '' && !isIpOrCidr(entry.trim())
        ? [problemAt(source, [...path, i], `is not an IP address or CIDR range: ${JSON.stringify(entry)}`)]
        : [],
    );
  }
  if (typeof raw !== 'string') return [];
  return raw
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !isIpOrCidr(line))
    .map((line) => problemAt(source, path, `has ${JSON.stringify(line)}, which is not an IP address or CIDR range`));
}

export function resolvePassword(
  source: SourceFile,
  path: DataPath,
  raw: unknown,
  env: Env,
  problems: ConfigProblem[],
  secrets: SecretMode,
): Secret | undefined {
  if (typeof raw !== 'string') return undefined;
  const name = referenceName(raw);
  if (name === undefined) return undefined; // a literal: the schema has already refused it
  const refused = refusedVariable(name, 'a password', 'SITESYNC_SHOP_PASSWORD');
  if (refused !== undefined) {
    problems.push(problemAt(source, path, refused));
    return undefined;
  }
  const value = env[name];
  if ((value === undefined || value === '') && secrets === 'check') {
    const message = `${missingMessage(name, env)}; validate and plan do not need it, apply does`;
    problems.push(problemAt(source, path, message, { severity: 'warning', code: 'unset_variable' }));
    return new UnresolvedSecret(name);
  }
  if (value === undefined || value === '') {
    problems.push(problemAt(source, path, missingMessage(name, env), { code: 'missing_variable' }));
    return undefined;
  }
  if (value.length > MAX_PASSWORD_LENGTH) {
    problems.push(
      problemAt(
        source,
        path,
        `comes from ${name}, which is longer than ${MAX_PASSWORD_LENGTH} characters (the service's limit)`,
      ),
    );
    return undefined;
  }
  return new Secret(value);
}
