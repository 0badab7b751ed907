/**
 * The raw websites.yaml, as TypeScript types. GENERATED from
 * schemas/websites.schema.json by scripts/gen-types.ts (npm run gen:types):
 * do not edit by hand.
 */

/**
 * Globs on canonical domains: * matches any run of characters, ? exactly one.
 */
export type GlobList = string[];
/**
 * Visibility of the statistics: public, private or password (0, 1, 2 also accepted).
 */
export type Privacy = 'public' | 'private' | 'password' | 0 | 1 | 2;
/**
 * Password for privacy: password, taken from the environment: ${NAME}. A literal password is refused.
 */
export type Password = string;
/**
 * Any text next to password: changing it (compared with the git baseline) re-sends the password, a rotation. The password itself is never stored.
 */
export type PasswordVersion = string | number;
export type Flag = boolean;
/**
 * URL query parameter names: a list, or a multi-line string.
 */
export type ParamList = string[] | string;
/**
 * IP addresses or CIDR ranges (IPv4 or IPv6): a list, or a multi-line string.
 */
export type IpList = string[] | string;
/**
 * A field that ignore_changes can name.
 */
export type IgnorableField =
  | 'privacy'
  | 'password'
  | 'email'
  | 'exclude_bots'
  | 'exclude_params'
  | 'exclude_ips'
  | 'favorite';
/**
 * Fields this tool never changes on the website: a field name, or a rule {field, reason, until} that expires after until.
 */
export type IgnoreChanges = (IgnorableField | IgnoreRule)[];

/**
 * sitesync websites.yaml (format version 1): the websites of a web-analytics service as code. Field names follow the service's API.
 */
export interface WebsitesConfig {
  /**
   * Format version of this file.
   */
  version: 1;
  /**
   * Where the service is. Never put an API key here: it comes from the environment.
   */
  api?: {
    /**
     * Base URL of the service, e.g. https://stats.example.com (may use ${VAR}).
     */
    url: string;
  };
  /**
   * Delete live websites in scope that are not listed (default false).
   */
  prune?: boolean;
  /**
   * Report live websites in scope that are not listed (prune off) as drift, like --unlisted-is-drift (default false).
   */
  unlisted_is_drift?: boolean;
  manage?: Manage;
  protect?: GlobList;
  limits?: Limits;
  /**
   * Applied to every website that does not set the field.
   */
  defaults?: {
    privacy?: Privacy;
    password?: Password;
    password_version?: PasswordVersion;
    email?: Flag;
    exclude_bots?: Flag;
    exclude_params?: ParamList;
    exclude_ips?: IpList;
    favorite?: Flag;
    ignore_changes?: IgnoreChanges;
  };
  /**
   * Several installations driven from one repository (docs/config.md, Targets). Each target is planned and applied with this file plus its own files, its own URL and its own key. Given in one file only.
   *
   * @minItems 1
   */
  targets?: [Target, ...Target[]];
  /**
   * The team's rules (docs/config.md, Policies): each a CEL expression over one website's desired settings (site) or over the plan (plan). validate compiles them, plan evaluates them, apply refuses an error violation unless acknowledged. Several files merge their lists.
   */
  policies?: Policy[];
  /**
   * The websites. Several files merge their lists.
   */
  websites?: Website[];
}
/**
 * Which live websites this configuration owns (globs on canonical domains).
 */
export interface Manage {
  include?: GlobList;
  exclude?: GlobList;
}
/**
 * Safety limits for apply.
 */
export interface Limits {
  /**
   * Most websites one apply may delete (default 3).
   */
  max_deletes?: number;
  /**
   * Most changes one apply may make, as a percentage of managed websites (default 30).
   */
  max_change_percent?: number;
}
/**
 * An ignore_changes entry with a reason and an optional end: after until, the field is compared again.
 */
export interface IgnoreRule {
  field: IgnorableField;
  /**
   * Why the drift is expected (shown when the rule expires).
   */
  reason?: string;
  /**
   * Last day the rule holds, YYYY-MM-DD in UTC: from the next day the field is compared again and plan notes the expiry.
   */
  until?: string;
}
/**
 * One installation of the service: where it is, where its key comes from, which files apply to it. Exactly one of key_env and key_file.
 */
export interface Target {
  /**
   * What --target selects and reports name: lowercase letters, digits, - and _.
   */
  name: string;
  /**
   * Base URL of this installation, e.g. https://stats.example.com (may use ${VAR}).
   */
  url: string;
  /**
   * Name of the environment variable holding this target's API key (never the key itself).
   */
  key_env?: string;
  /**
   * File holding this target's API key, relative to this file's directory (never the key itself).
   */
  key_file?: string;
  /**
   * Configuration files or directories for this target only, relative to this file's directory; this file applies to every target.
   */
  files?: string[];
  /**
   * Requests per minute sitesync may send to this target (--rate-limit overrides it).
   */
  rate_limit?: number;
  limits?: Limits;
  manage?: Manage;
  protect?: GlobList;
  /**
   * Report this target's live websites in scope that are not listed (prune off) as drift, over the files' unlisted_is_drift (--unlisted-is-drift still turns it on).
   */
  unlisted_is_drift?: boolean;
  /**
   * false: this target does not get the websites listed in the file that declares targets (those shared by every target), only its own files' (an account adopted with export --target). Default true.
   */
  shared_websites?: boolean;
}
/**
 * A rule every plan is checked against: rule is a CEL expression that must be true, over site (each matched website as configured) or over plan (the changes). Only the expression is evaluated: nothing in it runs a program.
 */
export interface Policy {
  /**
   * What violations, --allow-policy and sitesync-acknowledge: lines name: lowercase letters, digits, - and _.
   */
  name: string;
  /**
   * Where the rule applies: websites (include/exclude globs on canonical domains, as manage) and targets (names or globs); absent: everywhere.
   */
  match?: {
    include?: GlobList;
    exclude?: GlobList;
    /**
     * Target names or globs (* and ?): the rule applies only to these targets' plans.
     */
    targets?: string[];
  };
  /**
   * A CEL expression that must be true, e.g. site.exclude_bots or plan.deletes.size() <= 3.
   */
  rule: string;
  /**
   * What a violation says (plan, apply, the pull-request comment).
   */
  message: string;
  /**
   * error (the default): apply refuses until acknowledged; warning: shown, never blocks.
   */
  severity?: 'error' | 'warning';
}
export interface Website {
  /**
   * The website's domain; canonicalised as the service does (lowercase, no scheme, no leading www.).
   */
  domain: string;
  privacy?: Privacy;
  password?: Password;
  password_version?: PasswordVersion;
  email?: Flag;
  exclude_bots?: Flag;
  exclude_params?: ParamList;
  exclude_ips?: IpList;
  favorite?: Flag;
  ignore_changes?: IgnoreChanges;
}
