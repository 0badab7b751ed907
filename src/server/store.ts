/**
 * The reference server's storage interface. Routes talk only to this, so the
 * SQLite backend can be joined by a PostgreSQL one without touching HTTP code.
 * Values here are stored values (numbers, NULLs, hashes), never wire strings.
 */

export interface Account {
  id: number;
  name: string;
  /** Maximum number of websites; null = unlimited. */
  websiteLimit: number | null;
  /** false → every API request answers 403. */
  apiAccess: boolean;
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

export interface WebsiteStore {
  /** One page, serialised by the backend itself: building 100 records in JS costs more than the query. */
  listWebsites(query: ListQuery, shape: RecordShape): ListResult;
  getWebsite(accountId: number, id: number): WebsiteRecord | undefined;
  /** Whether any account has this domain (domains are unique across accounts). */
  domainExists(domain: string): boolean;
  countWebsites(accountId: number): number;
  /** Throws DomainTakenError when the domain is used by any account. */
  insertWebsite(accountId: number, domain: string, values: WebsiteValues, now: Date): WebsiteRecord;
  /** Undefined when the website does not exist in that account. */
  updateWebsite(accountId: number, id: number, changes: Partial<WebsiteValues>, now: Date): WebsiteRecord | undefined;
  deleteWebsite(accountId: number, id: number): boolean;
}

export interface AccountStore {
  createAccount(settings: { name: string; websiteLimit?: number | null; apiAccess?: boolean }): Account;
  updateAccount(id: number, settings: { websiteLimit?: number | null; apiAccess?: boolean }): Account | undefined;
  findAccountByName(name: string): Account | undefined;
  /** `keyHash` is the sha256 hex digest of the key; keys themselves are never stored. */
  addKey(accountId: number, keyHash: string): void;
  /** The account owning a key hash, with the stored hash for a constant-time check. */
  findKey(keyHash: string): { account: Account; keyHash: string } | undefined;
}

/** Everything the server needs from a backend. */
export interface ServerStore extends WebsiteStore, AccountStore {
  /** Throws when the database cannot answer a trivial query (for `GET /ready`). */
  ping(): void | Promise<void>;
  close(): void;
}
