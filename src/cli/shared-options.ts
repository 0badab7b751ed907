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
import { CLIENT_DEFAULTS } from '../api/index.js';
import { TIMEOUT_RANGE } from '../engine/connect.js';
import { LOG_LEVELS, type LogLevel } from '../engine/context.js';
import type { ConnectionRequest, RunRequest } from '../engine/request.js';
import { SitesyncError } from '../model/errors.js';
import type { Io } from './io.js';
import { collect, globsOption, secondsOption, targetOption, wholeNumberOption } from './option-values.js';

export type OutputFormat = 'human' | 'json' | 'markdown';
export { LOG_LEVELS, type LogLevel };
/** How to reach the service: shared by plan, apply and export. */
export type ConnectionOptions = ConnectionRequest;

/** What plan and apply get after parsing: the engine's request, and how to show its answer. */
export interface SharedOptions extends RunRequest {
  format: OutputFormat;
  /** Colour decided from the TTY, NO_COLOR, FORCE_COLOR and --no-color. */
  color: boolean;
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
