/**
 * What one engine call is asked to do, as values (validated, defaults
 * applied): where the configuration is, how to reach the service, which
 * domains. The CLI builds these from flags, the library from its options;
 * nothing here knows a flag or an output format.
 */
import type { ConfigUrl } from '../api/index.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import type { LogLevel } from './context.js';

/**
 * How the caller names the options a message may point at ("--only x matches
 * no website"): the command line's flags unless the caller says otherwise
 * (the library passes its option names).
 */
export interface OptionNames {
  only: string;
  syncWriteOnly: string;
  allowDelete: string;
  target: string;
  url: string;
  apiKeyFile: string;
}

export const FLAG_NAMES: OptionNames = {
  only: '--only',
  syncWriteOnly: '--sync-write-only',
  allowDelete: '--allow-delete',
  target: '--target',
  url: '--url',
  apiKeyFile: '--api-key-file',
};

/** The names a request's messages use. */
export const namesOf = (request: { names?: OptionNames | undefined }): OptionNames => request.names ?? FLAG_NAMES;

/** How to reach the service. */
export interface ConnectionRequest {
  /** Over the environment's SITESYNC_URL and the configuration's `api.url`. */
  url: string | undefined;
  /** A target's `url` (set by engine/targets.ts): used once its origin is pinned. */
  configUrl?: ConfigUrl | undefined;
  /** Origins a configuration's URL may name, besides SITESYNC_URL's and SITESYNC_ALLOWED_ORIGINS (the library's option). */
  allowedOrigins?: readonly string[] | undefined;
  apiKeyFile: string | undefined;
  /** The environment variable holding the key (a target's `key_env`); undefined: SITESYNC_API_KEY. */
  apiKeyEnv?: string | undefined;
  insecureHttp: boolean;
  /** Requests per minute the client may send; undefined: the client's default. */
  rateLimit: number | undefined;
  /** Seconds (SITESYNC_TIMEOUT when absent); undefined: the client's default. */
  timeout: number | undefined;
  /** The most detailed client log wanted (`debug` adds the request log). */
  logLevel: LogLevel;
  /** How messages name the options (default: the command line's flags). */
  names?: OptionNames | undefined;
}

/** One run over one configuration (and, with `target`, one of its targets). */
export interface RunRequest extends ConnectionRequest {
  /** Configuration files or directories; empty means websites.yaml. */
  files: string[];
  only: string[];
  skip: string[];
  /** Target names or globs chosen among `targets:`; empty: all. */
  targets: string[];
  /** The target this run is for (set by engine/targets.ts): its settings apply over the loaded files'. */
  target?: TargetDeclaration;
  /** With `target`: the run's own files (before the target's), which declare the targets. */
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

/** The defaults of a request: the configuration in websites.yaml, the URL and key from the environment. */
export function runRequest(overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    url: undefined,
    apiKeyFile: undefined,
    insecureHttp: false,
    rateLimit: undefined,
    timeout: undefined,
    logLevel: 'warn',
    files: [],
    only: [],
    skip: [],
    targets: [],
    ...overrides,
  };
}
