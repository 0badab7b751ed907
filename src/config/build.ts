/**
 * Files that passed YAML parsing → the DesiredState: top-level settings once,
 * `defaults` under every website, the service's defaults under those, canonical
 * domains (warned when they differ from what was written), duplicates across
 * files, and privacy: password only with a password.
 */
import type { ConfigProblem, DesiredState } from '../model/desired-state.js';
import {
  byDomain,
  canonicalDomain,
  isAdoptableDomain,
  isStorableDomain,
  isValidServiceDomain,
  serviceNormalizeDomain,
} from '../model/domain.js';
import type { Secret } from '../model/secret.js';
import {
  CONFIG_FIELD_NAMES,
  type DesiredWebsite,
  FIELDS,
  type FieldName,
  type Privacy,
  type SourceLocation,
  type WebsiteSettings,
} from '../model/website.js';
import { configDigest } from './digest.js';
import type { Env, SecretMode } from './env.js';
import { resolvePolicies } from './policies.js';
import {
  type DataPath,
  formatLocation,
  formatPath,
  locate,
  problemAt,
  type SourceFile,
  websiteAt,
} from './positions.js';
import { type ResolvedBlock, resolveBlock, resolvePassword, type WrittenRule } from './settings-block.js';
import { runSteps } from './steps.js';
import { resolveTargets } from './targets.js';
import {
  type LoadedFile,
  mergeTopLevel,
  pruneScopeAdvice,
  resolveApiUrl,
  resolvePolicy,
  type TopLevel,
} from './top-level.js';

const FIELD_ORDER = Object.keys(CONFIG_FIELD_NAMES) as FieldName[];

interface Defaults extends ResolvedBlock {
  /**
   * The defaults' password, resolved on first use: only a site with privacy: password
   * takes it, so its variable is needed (and reported, once) only then.
   */
  sharedPassword: () => Secret | undefined;
  /** Where a default privacy: password was set, for the message when a site lacks a password (found only then). */
  privacyAt?: () => SourceLocation;
  /** A password is written in defaults (even if its variable is unset, which is reported once). */
  passwordWritten: boolean;
  /** The defaults as written. */
  written: Readonly<Record<string, unknown>>;
  /** `written` without its password: what every DesiredWebsite.raw starts from. */
  writtenShown: Readonly<Record<string, unknown>>;
}

/** Where each resolved website is written: its file and its place in that file's `websites`. */
interface Origins {
  files: SourceFile[];
  indexes: number[];
}

export interface BuildResult {
  state?: DesiredState;
  problems: ConfigProblem[];
}

/** What loading asks of the build: validate's advice (with the day rules expire against) and how secrets resolve. */
export interface BuildOptions {
  advice?: boolean;
  /** Today (YYYY-MM-DD, UTC): with `advice`, an ignore_changes rule whose `until` has passed is a warning. */
  today?: string;
  /** `check` for validate and plan, which never send a password; `resolve` (the default) otherwise. */
  secrets?: SecretMode;
  /**
   * The files' `targets:` were left out (watch loads each target from the root files parsed
   * without them, checked where the root loaded): a policy's target names are not checked again.
   */
  targetsOmitted?: boolean;
}

export function buildState(files: readonly LoadedFile[], env: Env, options: BuildOptions = {}): BuildResult {
  return runSteps(buildSteps(files, env, options));
}

/** Websites resolved between two pauses of `buildSteps`. */
const SITES_PER_STEP = 500;

/**
 * `buildState` with a pause (`yield`) every SITES_PER_STEP websites: a caller
 * that lets the event loop in at each pause (loadConfig) keeps a listing that
 * runs meanwhile (engine/early-listing.ts) going while a large file is built.
 */
export function* buildSteps(
  files: readonly LoadedFile[],
  env: Env,
  options: BuildOptions = {},
): Generator<void, BuildResult> {
  const secrets = options.secrets ?? 'resolve';
  const problems: ConfigProblem[] = [];
  const top = mergeTopLevel(files, problems);
  const policy = resolvePolicy(top, problems);
  if (options.advice) problems.push(...pruneScopeAdvice(top));
  const apiUrl = resolveApiUrl(top, problems);
  const targets = resolveTargets(top, problems);
  const policies = resolvePolicies(files, options.targetsOmitted ? 'omitted' : targets, problems);
  const defaults = resolveDefaults(top, env, problems, secrets);
  const today = options.advice ? options.today : undefined;
  if (today !== undefined) problems.push(...expiredRuleAdvice(defaults.ignoreRules, today));
  const sites: DesiredWebsite[] = [];
  // Where each site is written (its file, its index in that file's websites): read only for a duplicate's message.
  const origins: Origins = { files: [], indexes: [] };
  for (const file of files) {
    const list: unknown = file.config.websites;
    if (!Array.isArray(list)) continue;
    for (let index = 0; index < list.length; index++) {
      const item: unknown = list[index];
      if (index % SITES_PER_STEP === SITES_PER_STEP - 1) yield;
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
      const site = resolveWebsite(
        file.source,
        index,
        item as Record<string, unknown>,
        defaults,
        env,
        problems,
        secrets,
        today,
      );
      if (!site) continue;
      sites.push(site);
      origins.files.push(file.source);
      origins.indexes.push(index);
    }
  }
  // Sorted by domain (stably: the first written comes first), any duplicate sits next to its first.
  const websites = isSortedByDomain(sites) ? sites : sites.slice().sort(byDomain);
  if (websites.some((site, i) => i > 0 && site.domain === websites[i - 1]!.domain))
    problems.push(...duplicateDomains(sites, origins));
  if (problems.some((problem) => problem.severity === 'error')) return { problems };

  let digest: string | undefined;
  const state: DesiredState = {
    websites,
    policy,
    files: files.map((file) => file.source.display),
    // Hashed when read (validate's output, a saved plan): a plan without --out never needs it.
    get digest() {
      digest ??= configDigest({ websites, policy, apiUrl });
      return digest;
    },
    warnings: problems,
  };
  if (apiUrl !== undefined) state.apiUrl = apiUrl;
  if (targets !== undefined) state.targets = targets;
  if (policies !== undefined) state.policies = policies;
  if (Object.keys(defaults.settings).length > 0) state.defaults = { ...defaults.settings };
  return { state, problems };
}

function resolveDefaults(top: TopLevel, env: Env, problems: ConfigProblem[], secrets: SecretMode): Defaults {
  const located = top.defaults;
  if (!located) {
    const none = {
      settings: {},
      ignoreChanges: [],
      ignoreRules: [],
      passwordWritten: false,
      written: {},
      writtenShown: {},
    };
    return { ...none, sharedPassword: () => undefined };
  }
  const { password: reference, ...rest } = located.value;
  const block = resolveBlock(located.source, ['defaults'], rest, env, problems, secrets);
  let shared: { secret: Secret | undefined } | undefined;
  const defaults: Defaults = {
    ...block,
    sharedPassword: () => {
      shared ??= {
        secret: resolvePassword(located.source, ['defaults', 'password'], reference, env, problems, secrets),
      };
      return shared.secret;
    },
    passwordWritten: located.value.password !== undefined,
    written: located.value,
    writtenShown: withoutPassword(located.value),
  };
  if (located.value.privacy !== undefined) defaults.privacyAt = () => locate(located.source, ['defaults', 'privacy']);
  return defaults;
}

function resolveWebsite(
  source: SourceFile,
  index: number,
  item: Readonly<Record<string, unknown>>,
  defaults: Defaults,
  env: Env,
  problems: ConfigProblem[],
  secrets: SecretMode,
  today: string | undefined,
): DesiredWebsite | undefined {
  const path = ['websites', index];
  // The password is resolved below, and only for a site that sends one.
  const own = resolveBlock(source, path, item, env, problems, secrets, false);
  if (typeof item.domain !== 'string') return undefined;
  const domain = checkDomain(source, path, item.domain, problems);
  if (domain === undefined) return undefined;

  const site: DesiredWebsite = {
    domain,
    settings: settingsOf(defaults.settings, own.settings),
    ignoreChanges: ignoredFields(defaults.ignoreChanges, own.ignoreChanges),
    source: websiteAt(source, index),
    raw: writtenValues(defaults.writtenShown, item),
  };
  const { settings } = site;
  // The site's own entry for a field replaces a rule from defaults for it (a plain name never expires).
  if (defaults.ignoreRules.length > 0 || own.ignoreRules.length > 0) {
    const rules = [
      ...defaults.ignoreRules.filter(({ rule }) => !own.ignoreChanges.includes(rule.field)),
      ...own.ignoreRules,
    ].map(({ rule }) => rule);
    if (rules.length > 0) site.ignoreRules = rules;
  }
  if (today !== undefined) problems.push(...expiredRuleAdvice(own.ignoreRules, today));
  // Only a password-protected site has one: a password written for (or defaulted to) any other is never
  // sent, so its variable is never needed, not even by apply.
  if (settings.privacy === 'password') {
    const password =
      item.password === undefined
        ? defaults.sharedPassword()
        : resolvePassword(source, [...path, 'password'], item.password, env, problems, secrets);
    if (password) site.password = password;
  }
  const version = item.password_version ?? defaults.written.password_version;
  if (site.password !== undefined && (typeof version === 'string' || typeof version === 'number'))
    site.passwordVersion = String(version);
  passwordProblems(source, path, item, settings.privacy, defaults, problems);
  return site;
}

/** ignore_changes of defaults and of the site, once each, in field order. */
function ignoredFields(fromDefaults: readonly FieldName[], own: readonly FieldName[]): FieldName[] {
  if (fromDefaults.length === 0 && own.length === 0) return [];
  const ignored = new Set([...fromDefaults, ...own]);
  return FIELD_ORDER.filter((field) => ignored.has(field));
}

/**
 * validate's warning for each rule whose `until` has passed (UTC): the field
 * is compared again, which is what the date asked for, but the rule is stale.
 */
function expiredRuleAdvice(rules: readonly WrittenRule[], today: string): ConfigProblem[] {
  return rules.flatMap(({ rule, source, path }) => {
    if (rule.until === undefined || rule.until >= today) return [];
    const field = CONFIG_FIELD_NAMES[rule.field];
    const reason = rule.reason === undefined ? '' : ` (reason: ${rule.reason})`;
    const message = `expired on ${rule.until} (UTC)${reason}: ${field} is compared again; remove the rule or move the date`;
    return [problemAt(source, [...path, 'until'], message, { severity: 'warning' })];
  });
}

/**
 * The site's settings: its own over `defaults` over the service's defaults.
 * One object per site, built in one go (no copy of the defaults per site).
 */
function settingsOf(defaults: Partial<WebsiteSettings>, own: Partial<WebsiteSettings>): WebsiteSettings {
  return {
    privacy: own.privacy ?? defaults.privacy ?? FIELDS.privacy.defaultValue,
    email: own.email ?? defaults.email ?? FIELDS.email.defaultValue,
    excludeBots: own.excludeBots ?? defaults.excludeBots ?? FIELDS.excludeBots.defaultValue,
    excludeParams: own.excludeParams ?? defaults.excludeParams ?? [],
    excludeIps: own.excludeIps ?? defaults.excludeIps ?? [],
    favorite: own.favorite ?? defaults.favorite ?? FIELDS.favorite.defaultValue,
  };
}

/** A block as written, minus any password reference. */
function withoutPassword(block: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(block)) if (key !== 'password') values[key] = block[key];
  return values;
}

/** What the user wrote for this site (its own values over the defaults'), minus its password reference. */
function writtenValues(
  defaults: Readonly<Record<string, unknown>>,
  own: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  // Object.assign, not a spread: run once per site (cold code), a spread costs several times as much.
  return Object.assign({}, defaults, own.password === undefined ? own : withoutPassword(own));
}

function passwordProblems(
  source: SourceFile,
  path: DataPath,
  item: Readonly<Record<string, unknown>>,
  privacy: Privacy,
  defaults: Defaults,
  problems: ConfigProblem[],
): void {
  const written = item.password !== undefined || defaults.passwordWritten;
  if (privacy === 'password' && !written) {
    const own = item.privacy !== undefined;
    const from = own || !defaults.privacyAt ? '' : ` (from defaults at ${formatLocation(defaults.privacyAt())})`;
    const message = `has privacy: password${from} but no password; add password: \${NAME}`;
    problems.push({ ...problemAt(source, own ? [...path, 'privacy'] : path, message), path: formatPath(path) });
  } else if (privacy !== 'password' && item.password !== undefined) {
    const message = 'is ignored: a password is only used when privacy is password';
    problems.push(problemAt(source, [...path, 'password'], message, { severity: 'warning' }));
  }
}

function checkDomain(
  source: SourceFile,
  /** The website's path: messages name its `domain`. */
  site: DataPath,
  written: string,
  problems: ConfigProblem[],
): string | undefined {
  // Most domains are written as the service stores them: one test, nothing to canonicalise or warn about.
  if (!written.startsWith('www.') && isValidServiceDomain(written)) return written;
  const domain = canonicalDomain(written);
  const valid = isValidServiceDomain(domain);
  const storable = valid || isStorableDomain(domain);
  if (!storable && isAdoptableDomain(domain)) {
    // Validation cannot see the live sites: plan refuses to create it (uncreatableDomains), adopts it when live.
    const message = `${JSON.stringify(written)} is not a valid domain for a new website; the service may already hold it (it stores some such domains), so it is managed when live and never created`;
    problems.push(problemAt(source, [...site, 'domain'], message, { severity: 'warning' }));
    return domain;
  }
  if (!storable) {
    const hint = written.includes('${')
      ? '; environment references are only resolved in password (docs/config.md)'
      : '';
    const message = `${JSON.stringify(written)} is not a valid domain: expected a hostname with at least one dot, or an IPv4 address, without port or path${hint}`;
    problems.push(problemAt(source, [...site, 'domain'], message));
    return undefined;
  }
  if (domain !== written) {
    const message = `${JSON.stringify(written)} is read as ${domain}${readAsWhy(written, domain)}; write ${domain}`;
    problems.push(problemAt(source, [...site, 'domain'], message, { severity: 'warning' }));
  } else if (!valid) {
    // The service stores it (so sitesync manages it), but it is not a hostname browsers and DNS accept.
    const message = `${JSON.stringify(written)} is not a standard hostname (underscore); the service stores it, so it is managed as written`;
    problems.push(problemAt(source, [...site, 'domain'], message, { severity: 'warning' }));
  }
  return domain;
}

/**
 * Why a written domain is read as its canonical form. The service itself
 * lowercases and drops a scheme and a leading `www.`, but it keeps a trailing
 * dot and Unicode as sent (issue 24): those are sitesync's own reading.
 */
function readAsWhy(written: string, domain: string): string {
  const normalized = serviceNormalizeDomain(written);
  if (normalized === domain) return ', as the service stores it';
  const kept = [normalized.endsWith('.') && 'a trailing dot', /[^\x00-\x7f]/.test(normalized) && 'Unicode'];
  const what = kept.filter(Boolean).join(' and ');
  return `: the service keeps ${what} as sent, so sitesync creates ${domain} and takes a live site under either spelling for this website`;
}

/** Whether the sites are in byDomain order already (an exported file is). */
function isSortedByDomain(sites: readonly DesiredWebsite[]): boolean {
  for (let i = 1; i < sites.length; i++) if (sites[i - 1]!.domain > sites[i]!.domain) return false;
  return true;
}

/** Each site whose domain an earlier one has, in the order written. */
function duplicateDomains(sites: readonly DesiredWebsite[], origins: Origins): ConfigProblem[] {
  const first = new Map<string, number>();
  const problems: ConfigProblem[] = [];
  const domainAt = (at: number): SourceLocation =>
    locate(origins.files[at]!, ['websites', origins.indexes[at]!, 'domain']);
  for (const [at, site] of sites.entries()) {
    const earlier = first.get(site.domain);
    if (earlier === undefined) {
      first.set(site.domain, at);
      continue;
    }
    problems.push({
      severity: 'error',
      code: 'duplicate',
      path: `${formatPath(['websites', origins.indexes[at]!])}.domain`,
      message: `${site.domain} is listed twice: also at ${formatLocation(domainAt(earlier))} (${formatPath(['websites', origins.indexes[earlier]!])})`,
      source: domainAt(at),
    });
  }
  return problems;
}
