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
  largeFields,
  MAX_FIELD_BYTES,
  SETTING_NAMES,
  type SettingName,
  trimListEntries,
  type WebsiteSettings,
} from '../model/website.js';
import { type Env, missingMessage, referenceName, type SecretMode } from './env.js';
import { isIpOrCidr } from './ip.js';
import { type DataPath, problemAt, type SourceFile } from './positions.js';

/** List settings: what a person writes there is trimmed per entry (live lines are not). */
const LIST_SETTINGS = new Set<SettingName>(['excludeParams', 'excludeIps']);

/** The service's limit on a website password. */
export const MAX_PASSWORD_LENGTH = 128;

export interface ResolvedBlock {
  settings: Partial<WebsiteSettings>;
  password?: Secret;
  ignoreChanges: FieldName[];
}

export function resolveBlock(
  source: SourceFile,
  path: DataPath,
  block: Readonly<Record<string, unknown>>,
  env: Env,
  problems: ConfigProblem[],
  secrets: SecretMode = 'resolve',
): ResolvedBlock {
  const settings: Partial<WebsiteSettings> = {};
  for (const name of SETTING_NAMES) {
    const raw = block[FIELDS[name].configName];
    if (raw === undefined) continue;
    const value = FIELDS[name].canonical(LIST_SETTINGS.has(name) ? trimListEntries(raw) : raw);
    if (value !== undefined) setSetting(settings, name, value);
  }
  problems.push(...ipProblems(source, [...path, FIELDS.excludeIps.configName], block[FIELDS.excludeIps.configName]));
  for (const { name, bytes } of largeFields(settings, MAX_FIELD_BYTES + 1)) {
    const message = `is ${bytes.toLocaleString('en-US')} bytes as sent, more than the ${MAX_FIELD_BYTES.toLocaleString('en-US')} bytes the service stores`;
    problems.push(problemAt(source, [...path, FIELDS[name].configName], message));
  }
  const resolved: ResolvedBlock = { settings, ignoreChanges: ignoreList(block.ignore_changes) };
  const password = resolvePassword(source, [...path, 'password'], block.password, env, problems, secrets);
  if (password) resolved.password = password;
  return resolved;
}

function setSetting<K extends SettingName>(
  settings: Partial<WebsiteSettings>,
  name: K,
  value: WebsiteSettings[K],
): void {
  settings[name] = value;
}

function ignoreList(raw: unknown): FieldName[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((entry) => fieldFromConfigName(String(entry))).filter((field) => field !== undefined);
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

function resolvePassword(
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
  const value = env[name];
  if ((value === undefined || value === '') && secrets === 'check') {
    const message = `${missingMessage([name], env)}; validate and plan do not need it, apply does`;
    problems.push(problemAt(source, path, message, { severity: 'warning', code: 'unset_variable' }));
    return new UnresolvedSecret(name);
  }
  if (value === undefined || value === '') {
    problems.push(problemAt(source, path, missingMessage([name], env), { code: 'missing_variable' }));
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
