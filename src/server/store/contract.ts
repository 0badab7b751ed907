/**
 * The reference server's storage interface. Routes talk only to this, so the
 * SQLite backend can be joined by a PostgreSQL one without touching HTTP code.
 * Values here are stored values (numbers, NULLs, hashes), never wire strings.
 */
import type { Throttle } from './throttle.js';

/** Ids are PostgreSQL integers on every backend: an id past this names no website (404, never an overflow). */
export const MAX_ID = 2 ** 31 - 1;

export interface Account {
  id: number;
  name: string;
  /** Maximum number of websites; null = unlimited. */
  websiteLimit: number | null;
  /** false → every API request answers 403. */
  apiAccess: boolean;
  /** phpAnalytics' admin role: in quirks mode its update may name a website's owner (`user_id`). */
  admin: boolean;
}

/** Where a key comes from: SITESYNC_SERVE_KEYS at start, or `accounts create`/`rotate-key`. */
export type KeySource = 'provisioned' | 'created';

/** What may be shown about a key: never the key, never its digest. */
export interface KeyInfo {
  id: number;
  accountId: number;
  /** The key's first characters, to tell keys apart ('' for keys stored before prefixes were kept). */
  prefix: string;
  createdAt: string;
  source: KeySource;
}

export interface AccountSummary extends Account {
  websiteCount: number;
  keys: KeyInfo[];
}

/** The stored settings of a website; null where the service stores NULL. */
export interface WebsiteValues {
  privacy: number | null;
  /** A salted scrypt hash (credentials.ts), never the password. */
  passwordHash: string | null;
  email: number | null;
  excludeBots: number | null;
  excludeParams: string | null;
  excludeIps: string | null;
  /** `YYYY-MM-DDTHH:MM:SS` (UTC), or null when not a favourite. */
  favoritedAt: string | null;
}

export interface WebsiteRecord extends WebsiteValues {
  id: number;
  accountId: number;
  domain: string;
  /** ISO-8601 UTC with microseconds, as the service shows it. */
  createdAt: string;
  updatedAt: string;
}

export interface ListQuery {
  accountId: number;
  /** Substring of the domain; `literal` false makes `%` and `_` wildcards. */
  search?: { text: string; literal: boolean };
  favorite?: boolean;
  sortBy: 'id' | 'domain';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * Where one key of the wire record comes from: a stored value as is, whether
 * it is set (the password), or a `T` date-time shown with a space (quirks).
 */
export interface FieldSource {
  column: keyof WebsiteRecord;
  as?: 'isSet' | 'spacedDateTime';
}

/** The wire record, key by key, in order (defined by present.ts). */
export type RecordShape = readonly (readonly [key: string, source: FieldSource])[];

export interface ListResult {
  /** The page's records serialised as a JSON array in the given shape. */
  json: string;
  /** Records on this page. */
  count: number;
  /** Records matching the query on all pages. */
  total: number;
}

/** Thrown by `insertWebsite` when the domain exists in any account. */
export class DomainTakenError extends Error {
  constructor(domain: string) {
    super(`domain already taken: ${domain}`);
    this.name = 'DomainTakenError';
  }
}

/**
 * Every operation is asynchronous so that a network database (PostgreSQL) can
 * implement the same interface; the SQLite backend answers from the calling
 * thread and only waits (off the event loop) when the file is locked.
 */
/** Thrown by `insertWebsite` when the account already has as many websites as its limit allows. */
export class WebsiteLimitError extends Error {
  constructor(accountId: number) {
    super(`website limit reached for account ${accountId}`);
    this.name = 'WebsiteLimitError';
  }
}

/** The database stayed locked (by another process) for longer than the store waits: try again later. */
export class StoreBusyError extends Error {
  constructor() {
    super('the database is locked by another connection');
    this.name = 'StoreBusyError';
  }
}

/** The database cannot grow (a full disk, or the file's size cap): writes fail until space is freed. */
export class StoreFullError extends Error {
  constructor() {
    super('the database is full: writes fail until space is freed');
    this.name = 'StoreFullError';
  }
}

export interface WebsiteStore {
  /** One page, serialised by the backend itself: building 100 records in JS costs more than the query. */
  listWebsites(query: ListQuery, shape: RecordShape): Promise<ListResult>;
  getWebsite(accountId: number, id: number): Promise<WebsiteRecord | undefined>;
  /** Whether any account has this domain (domains are unique across accounts). */
  domainExists(domain: string): Promise<boolean>;
  countWebsites(accountId: number): Promise<number>;
  /**
   * Checks the account's website limit and inserts in one atomic step (also across
   * processes sharing the database): throws WebsiteLimitError when the account is
   * full, DomainTakenError when the domain is used by any account.
   */
  insertWebsite(accountId: number, domain: string, values: WebsiteValues, now: Date): Promise<WebsiteRecord>;
  /** Undefined when the website does not exist in that account. */
  updateWebsite(
    accountId: number,
    id: number,
    changes: Partial<WebsiteValues>,
    now: Date,
  ): Promise<WebsiteRecord | undefined>;
  deleteWebsite(accountId: number, id: number): Promise<boolean>;
}

export interface AccountStore {
  createAccount(settings: {
    name: string;
    websiteLimit?: number | null;
    apiAccess?: boolean;
    admin?: boolean;
  }): Promise<Account>;
  updateAccount(
    id: number,
    settings: { websiteLimit?: number | null; apiAccess?: boolean; admin?: boolean },
  ): Promise<Account | undefined>;
  findAccountByName(name: string): Promise<Account | undefined>;
  /** Every account with its website count and keys, by id. */
  listAccounts(): Promise<AccountSummary[]>;
  /**
   * `keyHash` is the sha256 hex digest of the key; the backend stores it peppered
   * (HMAC with a server secret kept outside the database), never the key.
   */
  addKey(accountId: number, keyHash: string, key: { source: KeySource; prefix: string }): Promise<KeyInfo>;
  /**
   * The account owning a key, read from the database on every call (no cache), so a
   * revoked key fails on the next request. `keyHash` echoes the digest looked up.
   */
  findKey(keyHash: string): Promise<{ account: Account; keyId: number; keyHash: string } | undefined>;
  /**
   * False when no such key. The digest is remembered (`wasRevoked`), so provisioning never
   * brings the key back (a leaked key stays revoked across restarts).
   */
  revokeKey(keyId: number): Promise<boolean>;
  /** Revokes every key of the account but one (a rotation), remembered like `revokeKey`; returns how many. */
  revokeOtherKeys(accountId: number, keepKeyId: number): Promise<number>;
  /**
   * Revokes the provisioned keys whose digest is not in `keyHashes`; returns how many. Not
   * remembered: a key left out of SITESYNC_SERVE_KEYS comes back when it is listed again.
   */
  revokeProvisionedKeysExcept(keyHashes: readonly string[]): Promise<number>;
  /** Whether this key was revoked by `revokeKey` or `revokeOtherKeys`. */
  wasRevoked(keyHash: string): Promise<boolean>;
}

/** Cheap readings for the metrics (kept counters and pool state, never a scan of websites). */
export interface StoreStats {
  accounts: number;
  websites: number;
  /** PostgreSQL: this process's pool. */
  pool?: { inUse: number; waiting: number };
  /** SQLite: operations tried again because the file was locked, since the store opened. */
  busyRetries?: number;
}

/** Everything the server needs from a backend. */
export interface ServerStore extends WebsiteStore, AccountStore {
  /**
   * Throws when the database cannot answer a trivial query (for `GET /ready`), or
   * StoreFullError while its writes fail for want of space.
   */
  ping(): Promise<void>;
  /**
   * Runs `work` while no other process sharing the database runs its own (key
   * provisioning at start, when replicas start together). Absent where the
   * backend serialises processes itself (SQLite).
   */
  exclusive?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * A throttle counted in the database, shared by every process using it
   * (`scope` names the throttle). Absent where counts stay per process (SQLite).
   */
  sharedThrottle?(scope: string, limit: number, windowMs: number, clock: () => number): Throttle;
  /**
   * Whether an error thrown by this store means the database cannot answer for
   * now (answered 503 with Retry-After, like StoreBusyError). Absent where
   * StoreBusyError says it all (SQLite).
   */
  unavailable?(error: unknown): boolean;
  /** Readings for `--metrics-addr` (metrics/series.ts). */
  stats?(): Promise<StoreStats>;
  close(): Promise<void>;
}
