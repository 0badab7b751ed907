/**
 * Settings outside `websites` (api, prune, manage, protect, limits, defaults):
 * given once across all files, then turned into the policy and API URL. Globs
 * are checked here, since the schema cannot say what a glob may contain.
 */
import { type ConfigPolicy, type ConfigProblem, DEFAULT_POLICY } from '../model/desired-state.js';
import { isValidGlob } from '../model/glob.js';
import { hasReference, URL_REFERENCE_MESSAGE } from './env.js';
import { type DataPath, formatLocation, locate, problemAt, type SourceFile } from './positions.js';
import type { WebsitesConfig } from './schema-types.js';

export const ONCE_KEYS = [
  'api',
  'prune',
  'unlisted_is_drift',
  'manage',
  'protect',
  'limits',
  'defaults',
  'targets',
] as const;
export type OnceKey = (typeof ONCE_KEYS)[number];

export interface LoadedFile {
  source: SourceFile;
  config: WebsitesConfig;
}

export interface Located<T> {
  source: SourceFile;
  value: T;
}

export type TopLevel = { [K in OnceKey]?: Located<NonNullable<WebsitesConfig[K]>> };

/** The first file that sets each key wins; any later one is an error naming both places. */
export function mergeTopLevel(files: readonly LoadedFile[], problems: ConfigProblem[]): TopLevel {
  const top: Record<string, Located<unknown>> = {};
  for (const { source, config } of files) {
    for (const key of ONCE_KEYS) {
      // null (a key with nothing under it) is reported by the schema; treat it as absent here.
      if (config[key] === undefined || config[key] === null) continue;
      const first = top[key];
      if (first) {
        const where = formatLocation(locate(first.source, [key], 'key'));
        const message = `is already set at ${where}; settings outside websites may be given once across all files`;
        problems.push(problemAt(source, [key], message, { at: 'key', code: 'duplicate' }));
      } else {
        top[key] = { source, value: config[key] };
      }
    }
  }
  return top as TopLevel;
}

/** The glob list at `path` (its first segment is the top-level key), checked; undefined when absent. */
export function globs(
  located: Located<unknown> | undefined,
  path: DataPath,
  problems: ConfigProblem[],
): string[] | undefined {
  let list: unknown = located?.value;
  for (const key of path.slice(1))
    list = list !== null && typeof list === 'object' ? (list as Record<string, unknown>)[key] : undefined;
  if (!located || !Array.isArray(list)) return undefined;
  list.forEach((glob, i) => {
    if (typeof glob !== 'string') return;
    if (!isValidGlob(glob)) {
      const message = `is not a valid glob: ${JSON.stringify(glob)} (use domain characters, * and ?)`;
      problems.push(problemAt(located.source, [...path, i], message));
    } else if (glob.toLowerCase().startsWith('www.')) {
      const message = `${JSON.stringify(glob)} can never match: canonical domains never start with www.`;
      problems.push(problemAt(located.source, [...path, i], message, { severity: 'warning' }));
    }
  });
  return list.filter((glob): glob is string => typeof glob === 'string').map((glob) => glob.toLowerCase());
}

export function resolvePolicy(top: TopLevel, problems: ConfigProblem[]): ConfigPolicy {
  const limits = top.limits?.value;
  const policy: ConfigPolicy = {
    prune: top.prune?.value ?? DEFAULT_POLICY.prune,
    manage: {
      include: globs(top.manage, ['manage', 'include'], problems) ?? [...DEFAULT_POLICY.manage.include],
      exclude: globs(top.manage, ['manage', 'exclude'], problems) ?? [...DEFAULT_POLICY.manage.exclude],
    },
    protect: globs(top.protect, ['protect'], problems) ?? [...DEFAULT_POLICY.protect],
    limits: {
      maxDeletes: limits?.max_deletes ?? DEFAULT_POLICY.limits.maxDeletes,
      maxChangePercent: limits?.max_change_percent ?? DEFAULT_POLICY.limits.maxChangePercent,
    },
  };
  // Only when set, so the digest of every configuration without it stays as it was.
  if (top.unlisted_is_drift?.value === true) policy.unlistedIsDrift = true;
  return policy;
}

/**
 * `prune: true` with no `manage` scope makes the whole account the scope: a
 * warning (not an error, so existing files keep working; limits.max_deletes
 * and the empty-configuration rule still guard apply). `plan` says the same
 * in a note; validate asks for it here.
 */
export function pruneScopeAdvice(top: TopLevel): ConfigProblem[] {
  const prune = top.prune;
  if (prune?.value !== true || scoped(top.manage?.value)) return [];
  const message =
    'is on and no `manage` scope is set: every website of the account that is not listed will be deleted (within limits); set manage.include to the domains this file owns';
  return [problemAt(prune.source, ['prune'], message, { severity: 'warning' })];
}

/** Whether `manage` narrows the scope: an include list without `*`, or any exclude. */
function scoped(manage: unknown): boolean {
  if (manage === null || typeof manage !== 'object') return false;
  const { include, exclude } = manage as { include?: unknown; exclude?: unknown };
  const narrowInclude = Array.isArray(include) && !include.includes('*');
  return narrowInclude || (Array.isArray(exclude) && exclude.length > 0);
}

/** `api.url` as written (never a `${…}`: the URL is pinned outside the repository); http(s) only, never credentials. */
export function resolveApiUrl(top: TopLevel, problems: ConfigProblem[]): string | undefined {
  const api = top.api;
  if (!api || typeof api.value.url !== 'string') return undefined;
  const path = ['api', 'url'];
  const written = api.value.url;
  if (hasReference(written)) {
    problems.push(problemAt(api.source, path, URL_REFERENCE_MESSAGE));
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    problems.push(problemAt(api.source, path, 'is not a URL (expected e.g. https://stats.example.com)'));
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(problemAt(api.source, path, `must be an http:// or https:// URL, not ${url.protocol}`));
  } else if (url.username !== '' || url.password !== '') {
    problems.push(problemAt(api.source, path, 'must not contain credentials; the API key comes from the environment'));
  }
  return written.replace(/\/+$/, '');
}
