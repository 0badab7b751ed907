/**
 * The resolved configuration: what `config/` produces from websites.yaml files
 * and what `plan/` consumes. Plain data (secrets are Secret objects).
 */
import type { PolicyDeclaration } from './policies.js';
import type { DesiredWebsite, SourceLocation, WebsiteSettings } from './website.js';

export interface ConfigPolicy {
  prune: boolean;
  manage: { include: string[]; exclude: string[] };
  protect: string[];
  limits: { maxDeletes: number; maxChangePercent: number };
  /** `unlisted_is_drift: true`: live sites in scope that are not listed (prune off) are drift. Absent: false. */
  unlistedIsDrift?: boolean;
}

export const DEFAULT_POLICY: ConfigPolicy = {
  prune: false,
  manage: { include: ['*'], exclude: [] },
  protect: [],
  limits: { maxDeletes: 3, maxChangePercent: 30 },
};

/** What kind of problem, for programs (people read `message`; never match on it). */
export type ConfigProblemCode =
  | 'unreadable_file' // missing, too large, not UTF-8 text, or cannot be read
  | 'yaml' // YAML syntax error, or a YAML warning (an unknown tag)
  | 'invalid_value' // the schema or a value check refuses it
  | 'missing_variable' // a `${NAME}` reference whose variable is unset or empty, where its value is needed
  | 'unset_variable' // a warning: a password's variable is unset where only its presence matters (validate, plan)
  | 'duplicate' // a domain listed twice, or a once-only setting given in two files
  | 'advice'; // a warning: valid, but probably not what was meant

export interface ConfigProblem {
  severity: 'error' | 'warning';
  code: ConfigProblemCode;
  message: string;
  /** Path in the document, in the user's terms: `websites[3].privacy`. */
  path: string;
  source?: SourceLocation;
}

/** The one target of a configuration without `targets:`, as watch and its journal name it. */
export const SINGLE_TARGET = 'default';

/**
 * One installation of the service declared under `targets:` (docs/config.md,
 * Targets): its URL, where its key comes from (never the key), the files that
 * apply to it besides the declaring configuration, and settings of its own.
 */
export interface TargetDeclaration {
  name: string;
  /** `url` with `${VAR}` resolved. */
  url: string;
  /** An environment variable's name, or a key file (as written, relative to `baseDir`). */
  key: { env: string } | { file: string };
  /** As written, relative to `baseDir`. */
  files: string[];
  /** The declaring file's display path: `files` and `key.file` are relative to its directory. */
  declaredIn: string;
  rateLimit?: number;
  limits?: Partial<ConfigPolicy['limits']>;
  manage?: Partial<ConfigPolicy['manage']>;
  protect?: string[];
  /** `unlisted_is_drift` in the target's entry: over the files' setting (false turns it off for this target). */
  unlistedIsDrift?: boolean;
  /** `shared_websites: false`: the websites of the declaring file are not this target's. */
  sharedWebsites?: false;
}

export interface DesiredState {
  websites: DesiredWebsite[];
  policy: ConfigPolicy;
  /** `api.url` from the file, if given. */
  apiUrl?: string;
  files: string[];
  /** sha256 of the resolved configuration without secret values: a saved plan's staleness check. */
  digest: string;
  warnings: ConfigProblem[];
  /** `targets:`, when declared: each target is planned with this state's files plus its own. */
  targets?: TargetDeclaration[];
  /** `policies:`, when declared: compiled and evaluated by src/plan/policies/ (not part of `digest`: a saved plan records their own). */
  policies?: PolicyDeclaration[];
  /** The settings `defaults:` gives every website, when written (export --target writes relative to them). */
  defaults?: Partial<WebsiteSettings>;
}
