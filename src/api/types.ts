/**
 * What the rest of sitesync may ask of the service. `ApiClient` (client.ts)
 * implements it over HTTP; apply/ and the CLI depend only on this interface.
 */
import type { Secret } from '../model/secret.js';
import type { DesiredWebsite, LiveWebsite, WebsiteSettings } from '../model/website.js';
import type { AccountAllowance } from './account.js';

export interface WebsiteUpdate {
  /** Only the settings that change. */
  settings: Partial<WebsiteSettings>;
  /** Sent when set; never read back. */
  password?: Secret;
}

/** Every call takes the run's abort signal, so Ctrl-C stops waits, retries and requests in flight. */
export interface Cancellable {
  signal?: AbortSignal;
  /**
   * Called as each HTTP attempt is about to be sent (after any rate-limiter wait):
   * lets apply tell a write that never left (skipped on Ctrl-C) from one in flight.
   */
  onSend?: () => void;
}

export interface RequestStats {
  /** HTTP requests sent, retries included. */
  requests: number;
  retries: number;
  /** 429 answers received. */
  throttled: number;
}

/** The client's rate limiter as a progress line sees it. */
export interface Pacing {
  /** How long the next request still waits for the rate limit (0 when none waits). */
  waitingMs(): number;
  /** How long until `requests` more requests have started at the current limit (undefined without one). */
  estimateMs(requests: number): number | undefined;
}

export interface WebsitesApi {
  /** The base URL, without credentials (for messages and plan files). */
  readonly url: string;
  /** Every website of the account, complete or an error: never a partial list. */
  listWebsites(options?: Cancellable): Promise<LiveWebsite[]>;
  /**
   * Every website whose canonical domain is one of `domains` (a `search` per
   * spelling the service may have stored, filtered to exact matches; the whole
   * account when an IDN is found under none): the live state of a targeted plan.
   */
  listWebsitesNamed(domains: readonly string[], options?: Cancellable): Promise<LiveWebsite[]>;
  /**
   * The account's website allowance (`GET /api/v1/account`, one request), or
   * undefined where the service does not offer it (404) or does not say.
   */
  readAccount(options?: Cancellable): Promise<AccountAllowance | undefined>;
  /** How many websites the account holds (one list request, `meta.total`), or undefined when the answer does not say. */
  countWebsites(options?: Cancellable): Promise<number | undefined>;
  /** One website, or undefined when it does not exist (404). */
  getWebsite(id: number, options?: Cancellable): Promise<LiveWebsite | undefined>;
  /** Exact canonical-domain lookup through `search`. */
  findWebsite(domain: string, options?: Cancellable): Promise<LiveWebsite | undefined>;
  /** Creates the site with every desired field; never creates a duplicate. */
  createWebsite(desired: DesiredWebsite, options?: Cancellable): Promise<LiveWebsite>;
  /** Sends only the given fields. A site that is gone raises a `not_found` SitesyncError. */
  updateWebsite(id: number, update: WebsiteUpdate, options?: Cancellable): Promise<LiveWebsite>;
  /** Deletes the site; a site already gone counts as success (returns false). */
  deleteWebsite(id: number, options?: Cancellable): Promise<boolean>;
  readonly stats: RequestStats;
  readonly pacing: Pacing;
  close(): Promise<void>;
}
