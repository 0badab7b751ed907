/**
 * `sitesync watch`'s own values, checked before anything starts: durations
 * (`90s`, `5m`, `1h30m`, `24h`), the budget (`N/min`), the self-heal policy,
 * windows, webhooks from the environment, and the metrics address. A bad
 * value is one `usage` error naming the option.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_BASELINE_TAG } from '../engine/baseline.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import { gitPuller } from './git-pull.js';
import { HEAL_MODES, type HealMode, type HealPolicy } from './heal-policy.js';
import type { WatchSettings } from './index.js';
import type { Logger } from './log.js';
import { StatusToken } from './page/access.js';
import { parseAddress } from './status-server.js';
import { DEFAULT_CONCURRENCY } from './watcher.js';
import type { Webhook } from './webhooks.js';
import { parseWindow } from './window.js';

/** The defaults, documented in docs/watch.md. */
export const WATCH_DEFAULTS = {
  interval: '5m',
  /** A third of the service's 60 requests a minute: plan, apply and people keep the rest. */
  budget: '20/min',
  renotify: '24h',
  concurrency: DEFAULT_CONCURRENCY,
  maxHeal: 5,
  healFailures: 3,
} as const;

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `5m`, `1h30m`: milliseconds, at least `minMs`. */
export function durationOption(option: string, text: string, minMs: number): number {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy)];
  const total = parts.reduce((sum, [, value, unit]) => sum + Number(value) * (UNIT_MS[unit ?? ''] ?? 0), 0);
  const whole = parts.map((part) => part[0]).join('') === text && parts.length > 0;
  if (!whole)
    throw new SitesyncError('usage', `${option} ${JSON.stringify(text)}: expected a duration such as 90s, 5m or 1h30m`);
  if (total < minMs) throw new SitesyncError('usage', `${option} ${text}: must be at least ${minMs / 1000} s`);
  return total;
}

/** `20/min` or `20`: requests a minute, 1 to 60 (the service's own limit). */
export function budgetOption(text: string): number {
  const match = /^(\d+)(?:\/min)?$/.exec(text.trim());
  const value = Number(match?.[1]);
  if (match === null || value < 1 || value > 60)
    throw new SitesyncError(
      'usage',
      `--budget ${JSON.stringify(text)}: expected N/min with N from 1 to 60 (the service allows 60)`,
    );
  return value;
}

export interface HealFlags {
  selfHeal?: string | undefined;
  maxHeal?: string | undefined;
  healFailures?: string | undefined;
  window?: string[] | undefined;
  allowDelete?: string[] | undefined;
}

export function healPolicyOf(flags: HealFlags): HealPolicy | undefined {
  if (flags.selfHeal === undefined) {
    const healing = {
      '--max-heal': flags.maxHeal,
      '--window': flags.window,
      '--allow-delete': flags.allowDelete,
      '--heal-failures': flags.healFailures,
    };
    const given = Object.entries(healing).find(([, value]) => value !== undefined);
    if (given !== undefined) throw new SitesyncError('usage', `${given[0]} needs --self-heal drift|pending|all`);
    return undefined;
  }
  if (!(HEAL_MODES as readonly string[]).includes(flags.selfHeal))
    throw new SitesyncError(
      'usage',
      `--self-heal must be one of ${HEAL_MODES.join(', ')}, not ${JSON.stringify(flags.selfHeal)}`,
    );
  const windows = (flags.window ?? []).map((text) => {
    const window = parseWindow(text);
    if (typeof window === 'string') throw new SitesyncError('usage', `--window ${window}`);
    return window;
  });
  const allowDelete = (flags.allowDelete ?? []).map((domain) => {
    // Exact domains only: a glob would acknowledge deletes nobody has seen.
    if (/[*?]/.test(domain) || canonicalDomain(domain) === '')
      throw new SitesyncError(
        'usage',
        `--allow-delete ${JSON.stringify(domain)}: name one exact domain (no glob) for self-heal`,
      );
    return canonicalDomain(domain);
  });
  return {
    mode: flags.selfHeal as HealMode,
    maxPerCycle: whole('--max-heal', flags.maxHeal, WATCH_DEFAULTS.maxHeal, 1),
    maxFailures: whole('--heal-failures', flags.healFailures, WATCH_DEFAULTS.healFailures, 1),
    windows,
    allowDelete,
  };
}

function whole(option: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new SitesyncError('usage', `${option} ${JSON.stringify(text)}: expected a whole number ≥ ${min}`);
  return Number(text);
}

/** `--webhook-env NAME`: the variable must hold an http(s) URL; only NAME is ever shown. */
export function webhooksOf(names: readonly string[], env: Readonly<Record<string, string | undefined>>): Webhook[] {
  return names.map((name) => {
    const url = env[name];
    if (url === undefined || url === '')
      throw new SitesyncError('usage', `--webhook-env ${name}: the variable is not set`);
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || !['http:', 'https:'].includes(parsed.protocol))
      throw new SitesyncError('usage', `--webhook-env ${name}: the variable does not hold an http(s) URL`);
    return { name, url };
  });
}

/** `--coordination-env NAME`: the variable must hold a postgres:// URL (it holds a password: only NAME is shown). */
export function coordinationOf(
  name: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  replica?: string,
): { url: string; replica?: string } | undefined {
  if (name === undefined) {
    if (replica !== undefined) throw new SitesyncError('usage', '--replica-name needs --coordination-env');
    return undefined;
  }
  const url = env[name];
  if (url === undefined || url === '')
    throw new SitesyncError('usage', `--coordination-env ${name}: the variable is not set`);
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new SitesyncError(
      'usage',
      `--coordination-env ${name}: the variable does not hold a PostgreSQL URL (postgres://…)`,
    );
  return { url, ...(replica !== undefined && { replica }) };
}

export function metricsAddressOf(text: string | undefined): { host: string; port: number } | undefined {
  if (text === undefined) return undefined;
  const address = parseAddress(text);
  if (address === undefined)
    throw new SitesyncError('usage', `--metrics-addr ${JSON.stringify(text)}: expected HOST:PORT (e.g. 0.0.0.0:9464)`);
  return address;
}

/** A status token shorter than this is refused: it is all that closes the page. */
export const MIN_STATUS_TOKEN = 16;

/** `--status-token-env NAME`: the variable must hold a token of at least MIN_STATUS_TOKEN characters. */
export function statusTokenOf(
  name: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): StatusToken | undefined {
  if (name === undefined) return undefined;
  const token = env[name];
  if (token === undefined || token === '')
    throw new SitesyncError('usage', `--status-token-env ${name}: the variable is not set`);
  if (token.length < MIN_STATUS_TOKEN || /\s/.test(token))
    throw new SitesyncError(
      'usage',
      `--status-token-env ${name}: the token must be at least ${MIN_STATUS_TOKEN} characters, without spaces`,
    );
  return new StatusToken(token);
}

/** `--public-url URL`: where people reach the status page (http or https, no query); without a trailing slash. */
export function publicUrlOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '')
    throw new SitesyncError(
      'usage',
      `--public-url ${JSON.stringify(text)}: expected the http(s) URL of the status page, without a query`,
    );
  return url.href.replace(/\/+$/, '');
}

/** commander's values of `sitesync watch`. */
export interface WatchFlags {
  file?: string[];
  target?: string[];
  url?: string;
  apiKeyFile?: string;
  insecureHttp?: boolean;
  interval: string;
  budget: string;
  concurrency?: string;
  metricsAddr?: string;
  statusTokenEnv?: string;
  publicUrl?: string;
  webhookEnv?: string[];
  coordinationEnv?: string;
  replicaName?: string;
  renotify: string;
  selfHeal?: string;
  maxHeal?: string;
  healFailures?: string;
  window?: string[];
  allowDelete?: string[];
  journal?: string;
  baseline?: string | boolean;
  gitPull?: boolean;
  gitRemote: string;
  gitBranch?: string;
  logFormat: string;
  logLevel: string;
}

/** Where git runs: the first configuration path, or the directory of that file. */
function gitDirOf(path: string): string {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true ? path : dirname(path);
}

/** Every flag checked and turned into settings (the CLI adds the clock and the journal). */
export function watchSettings(
  flags: WatchFlags,
  where: { cwd: string; env: Readonly<Record<string, string | undefined>> },
  log: Logger,
): Omit<WatchSettings, 'clock' | 'now'> {
  const heal = healPolicyOf(flags);
  const files = flags.file ?? [];
  const baseline = flags.baseline === true ? undefined : flags.baseline;
  const metricsAddress = metricsAddressOf(flags.metricsAddr);
  const page = { '--status-token-env': flags.statusTokenEnv, '--public-url': flags.publicUrl };
  const pageFlag = Object.entries(page).find(([, value]) => value !== undefined)?.[0];
  if (metricsAddress === undefined && pageFlag !== undefined)
    throw new SitesyncError('usage', `${pageFlag} needs --metrics-addr (the status page is served there)`);
  const pull =
    flags.gitPull === true
      ? gitPuller({
          dir: gitDirOf(resolve(where.cwd, files[0] ?? '.')),
          remote: flags.gitRemote,
          branch: flags.gitBranch,
          tag: typeof baseline === 'string' ? baseline : DEFAULT_BASELINE_TAG,
        })
      : undefined;
  return {
    source: {
      files,
      targets: flags.target ?? [],
      cwd: where.cwd,
      env: where.env,
      url: flags.url,
      apiKeyFile: flags.apiKeyFile,
      insecureHttp: flags.insecureHttp === true,
      baseline,
      heals: heal !== undefined,
    },
    intervalMs: durationOption('--interval', flags.interval, 1_000),
    budgetPerMinute: budgetOption(flags.budget),
    concurrency: whole('--concurrency', flags.concurrency, WATCH_DEFAULTS.concurrency, 1),
    renotifyMs: durationOption('--renotify', flags.renotify, 60_000),
    heal,
    webhooks: webhooksOf(flags.webhookEnv ?? [], where.env),
    metricsAddress,
    statusToken: statusTokenOf(flags.statusTokenEnv, where.env),
    publicUrl: publicUrlOf(flags.publicUrl),
    coordination: coordinationOf(flags.coordinationEnv, where.env, flags.replicaName),
    log,
    debug: flags.logLevel === 'debug',
    beforeReload: pull,
  };
}
