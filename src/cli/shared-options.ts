/**
 * Options shared by `plan` and `apply` (and partly `export`): where the
 * configuration is, how to reach the service, how to print. `addSharedOptions`
 * declares them on a commander command; `readSharedOptions` turns commander's
 * raw values into one validated `SharedOptions` value, so both commands read
 * options the same way. Environment variables are read by `resolveConnection`
 * from `io.env`, never here (commander's Option.env would read process.env and
 * break in-process tests).
 */
import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { CLIENT_DEFAULTS, type Connection, createClient, resolveConnection, type WebsitesApi } from '../api/index.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import type { Io } from './io.js';
import { globsOption, secondsOption, targetOption, wholeNumberOption } from './option-values.js';
import { collect } from './repeatable.js';

export type OutputFormat = 'human' | 'json' | 'markdown';
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How to reach the service: shared by plan, apply and export. */
export interface ConnectionOptions {
  url: string | undefined;
  apiKeyFile: string | undefined;
  /** The environment variable holding the key (a target's `key_env`); undefined: SITESYNC_API_KEY. */
  apiKeyEnv?: string | undefined;
  insecureHttp: boolean;
  /** Requests per minute the client may send; undefined: the client's default. */
  rateLimit: number | undefined;
  /** --timeout in seconds (SITESYNC_TIMEOUT when absent: read by `openClient`); undefined: the client's default. */
  timeout: number | undefined;
  logLevel: LogLevel;
}

/** What plan and apply get after parsing: validated, defaults applied. */
export interface SharedOptions extends ConnectionOptions {
  /** -f/--file, repeatable; empty means the config loader's default (websites.yaml). */
  files: string[];
  format: OutputFormat;
  only: string[];
  skip: string[];
  /** Colour decided from the TTY, NO_COLOR, FORCE_COLOR and --no-color. */
  color: boolean;
  /** --target NAME-or-glob, repeatable (docs/config.md, Targets). */
  targets: string[];
  /** The target this run is for (set by engine/targets.ts): its settings apply over the loaded files'. */
  target?: TargetDeclaration;
  /** With `target`: the command's own files (before the target's), which declare the targets. */
  rootFiles?: string[];
  /**
   * With `target`: the domains every chosen target configures. An --only or
   * --sync-write-only domain that one of them lists is no typo in a target that does not.
   */
  spanDomains?: readonly string[];
  /**
   * With `target`: called after listing with the --only patterns that match
   * nothing in this target (engine/patterns-across-targets.ts): the run, not this
   * target, decides whether they are typos. Absent: they are refused here.
   */
  onlyAcrossTargets?: (unmatched: readonly string[]) => Promise<void>;
}

/** commander's raw values for the shared options (before readSharedOptions). */
export interface RawSharedOptions {
  file?: string[] | undefined;
  url?: string | undefined;
  apiKeyFile?: string | undefined;
  insecureHttp?: boolean | undefined;
  rateLimit?: string | undefined;
  timeout?: string | undefined;
  logLevel?: string | undefined;
  format?: string | undefined;
  only?: string[] | undefined;
  skip?: string[] | undefined;
  color?: boolean | undefined;
  target?: string[] | undefined;
}

export { collect };

/** Declares --url, --api-key-file, --insecure-http, --rate-limit, --timeout and --log-level. */
export function addConnectionOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
): Command<A, O & RawSharedOptions, G> {
  command
    .addOption(new Option('--url <url>', 'base URL of the analytics service (overrides api.url and SITESYNC_URL)'))
    .addOption(new Option('--api-key-file <path>', 'file holding the API key (default: SITESYNC_API_KEY)'))
    .addOption(new Option('--insecure-http', 'allow a plain http:// URL that is not loopback'))
    .addOption(new Option('--rate-limit <n>', 'requests per minute the client may send (0: no limit)'))
    .addOption(
      new Option(
        '--timeout <seconds>',
        `give up on a request after this long without a complete answer, retries included (also SITESYNC_TIMEOUT; default ${CLIENT_DEFAULTS.timeouts.operationMs / 1000})`,
      ),
    )
    .addOption(new Option('--log-level <level>', 'error, warn, info or debug (default warn)').choices(LOG_LEVELS));
  return command as unknown as Command<A, O & RawSharedOptions, G>;
}

/** Declares the shared options on `command`; `formats` are the values its --format accepts (first is the default). */
export function addSharedOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  formats: readonly OutputFormat[] = ['human', 'json'],
): Command<A, O & RawSharedOptions, G> {
  command.addOption(
    new Option('-f, --file <path>', 'configuration file or directory (repeatable; default websites.yaml)').argParser(
      collect,
    ),
  );
  addConnectionOptions(command)
    .addOption(new Option('--format <format>', `output format: ${formats.join(', ')}`).choices(formats))
    .addOption(new Option('--only <glob>', 'only these domains (repeatable)').argParser(collect))
    .addOption(new Option('--skip <glob>', 'leave these domains out (repeatable)').argParser(collect))
    .addOption(new Option('--no-color', 'never colour the output'))
    .addOption(targetOption());
  return command as unknown as Command<A, O & RawSharedOptions, G>;
}

/** commander's raw values of the baseline options of plan and apply. */
export interface RawBaselineOptions {
  /** A git revision, or false for --no-baseline. */
  baseline?: string | boolean | undefined;
  unlistedIsDrift?: boolean | undefined;
}

/** --baseline, --no-baseline and --unlisted-is-drift (docs/plan-format.md, "Baseline"), for `addOption`. */
export function baselineOptions(): Option[] {
  return [
    new Option(
      '--baseline <ref>',
      'git revision the configuration was last applied at: classify changes as pending, drift or conflict (also SITESYNC_BASELINE; default: the tag sitesync-applied when it exists)',
    ),
    new Option('--no-baseline', 'no baseline, not even the default tag'),
    new Option('--unlisted-is-drift', 'websites in the manage scope that are not listed (prune off) are drift'),
  ];
}

/** Validates the connection options; a bad value is a `usage` SitesyncError naming the option. */
export function readConnectionOptions(raw: RawSharedOptions): ConnectionOptions {
  return {
    url: raw.url,
    apiKeyFile: raw.apiKeyFile,
    insecureHttp: raw.insecureHttp === true,
    rateLimit: parseRateLimit(raw.rateLimit),
    timeout: raw.timeout === undefined ? undefined : secondsOption('--timeout', raw.timeout, TIMEOUT_RANGE),
    logLevel: (raw.logLevel ?? 'warn') as LogLevel,
  };
}

/** Validates raw option values; a bad value is a `usage` SitesyncError naming the option. */
export function readSharedOptions(
  raw: RawSharedOptions,
  io: Pick<Io, 'env' | 'stdout'>,
  formats: readonly OutputFormat[] = ['human', 'json'],
): SharedOptions {
  const only = globsOption('--only', raw.only);
  const skip = globsOption('--skip', raw.skip);
  const format = (raw.format ?? formats[0] ?? 'human') as OutputFormat;
  if (!formats.includes(format)) throw new SitesyncError('usage', `--format must be one of ${formats.join(', ')}`);
  return {
    ...readConnectionOptions(raw),
    files: raw.file ?? [],
    format,
    only,
    skip,
    color: colorEnabled({ isTTY: io.stdout.isTTY, env: io.env, noColorFlag: raw.color === false }),
    targets: raw.target ?? [],
  };
}

/** The service URL and API key from --url, --api-key-file, the environment and the configuration's `api.url`. */
export function connectionOf(
  options: ConnectionOptions,
  io: Pick<Io, 'env' | 'cwd'>,
  configApiUrl?: string,
): Connection {
  return resolveConnection({
    env: io.env,
    cwd: io.cwd,
    insecureHttp: options.insecureHttp,
    ...(options.url !== undefined && { url: options.url }),
    ...(options.apiKeyFile !== undefined && { apiKeyFile: options.apiKeyFile }),
    ...(options.apiKeyEnv !== undefined && { apiKeyEnv: options.apiKeyEnv }),
    ...(configApiUrl !== undefined && { configApiUrl }),
  });
}

/**
 * Opens a client for a connection resolved by `connectionOf` (resolved once per
 * command, so a saved plan's key id comes from the same key the client uses);
 * debug logging goes to stderr (redacted by Io).
 * The client's notices (a wait of 5 s or more, an unreadable setting) go to
 * stderr as `warn:` lines, so they show at the default level: a person
 * watching a silent minute would think it hung. The caller closes it.
 */
export function openClient(
  options: ConnectionOptions,
  io: Io,
  connection: Connection,
  concurrency?: number,
  notices: NoticeSink = stderrNotices(io),
): WebsitesApi {
  const timeoutMs = requestTimeoutMs(options, io);
  return createClient({
    url: connection.url,
    apiKey: connection.apiKey,
    insecureHttp: options.insecureHttp,
    ...(options.rateLimit !== undefined && { rateLimitPerMinute: options.rateLimit }),
    ...(timeoutMs !== undefined && { timeouts: requestTimeouts(timeoutMs) }),
    ...(concurrency !== undefined && { concurrency }),
    ...(logs(options.logLevel, 'debug') && { logger: (line: string) => io.stderr.write(`debug: ${line}\n`) }),
    ...(logs(options.logLevel, 'warn') && { notice: (line: string) => notices.write(`warn: ${line}`) }),
  });
}

/**
 * Where a client's notices go: whole lines, written to stderr by default. A
 * sink (not a fixed stream) so apply's progress can take them over while its
 * live line is drawn, printing each on its own line above it.
 */
export interface NoticeSink {
  write: (line: string) => void;
}

export function stderrNotices(io: Io): NoticeSink {
  return { write: (line) => io.stderr.write(`${line}\n`) };
}

/** One line on stderr when `level` is enabled. */
export function log(options: Pick<ConnectionOptions, 'logLevel'>, io: Io, level: LogLevel, message: string): void {
  if (logs(options.logLevel, level)) io.stderr.write(`${level}: ${message}\n`);
}

const TIMEOUT_RANGE = { min: 0.1, max: 3_600 };

/** --timeout, else SITESYNC_TIMEOUT (validated alike), in milliseconds; undefined: the client's default. */
function requestTimeoutMs(options: Pick<ConnectionOptions, 'timeout'>, io: Pick<Io, 'env'>): number | undefined {
  const fromEnv = io.env.SITESYNC_TIMEOUT;
  const seconds =
    options.timeout ??
    (fromEnv === undefined || fromEnv === '' ? undefined : secondsOption('SITESYNC_TIMEOUT', fromEnv, TIMEOUT_RANGE));
  return seconds === undefined ? undefined : Math.round(seconds * 1000);
}

/**
 * The deadline of one request, retries and backoff included; one attempt
 * waits for the answer at most the client's default (30 s), or less when the
 * deadline is shorter: a stalled attempt is then retried where that is safe.
 */
function requestTimeouts(timeoutMs: number) {
  const { headersMs, bodyMs } = CLIENT_DEFAULTS.timeouts;
  return { operationMs: timeoutMs, headersMs: Math.min(headersMs, timeoutMs), bodyMs: Math.min(bodyMs, timeoutMs) };
}

function parseRateLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  return wholeNumberOption('--rate-limit', text, { min: 0, meaning: 'of requests per minute (0: no limit)' });
}

/**
 * Colour on a terminal unless NO_COLOR or --no-color; FORCE_COLOR turns it on
 * when piped. Decided here rather than by picocolors, which forces colour
 * whenever `CI` is set.
 */
export function colorEnabled(input: {
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag: boolean;
}): boolean {
  if (input.noColorFlag) return false;
  if (input.env.NO_COLOR !== undefined && input.env.NO_COLOR !== '') return false;
  const force = input.env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return input.isTTY;
}

/** True when messages at `level` should be printed under `threshold`. */
export function logs(threshold: LogLevel, level: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(threshold);
}
