/**
 * Who may see the page and `/status` when `--status-token-env NAME` is set:
 * a program sends `Authorization: Bearer TOKEN`; a person types the token
 * once into the login form and gets a cookie (HttpOnly, SameSite=Strict)
 * holding a digest of the token, never the token itself. Changing the token
 * (and restarting) ends every session. Wrong tokens typed into the form are
 * limited to LOGIN_FAILURES a minute for the whole process (the token is long
 * and random; this keeps guessing slow); wrong bearer tokens are not counted,
 * or anyone reaching the port could lock the programs reading /status out.
 * Without a token everything is open.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'sitesync_status';
/** How long a login lasts (the cookie's Max-Age). */
export const SESSION_SECONDS = 12 * 3600;
export const LOGIN_FAILURES = 10;
const WINDOW_MS = 60_000;

/**
 * The token as watch keeps it: its SHA-256 digest only (read from the variable
 * once, at start), which neither JSON nor inspect shows.
 */
export class StatusToken {
  readonly #digest: Buffer;

  constructor(token: string) {
    this.#digest = digest(token);
  }

  /** Constant-time. */
  matches(candidate: string): boolean {
    return timingSafeEqual(digest(candidate), this.#digest);
  }

  /** The session cookie's value: keyed by the token's digest, so a new token ends every session. */
  session(): string {
    return createHmac('sha256', this.#digest).update('sitesync watch status page session').digest('base64url');
  }

  toJSON(): string {
    return '(secret)';
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '(secret)';
  }
}

export interface AccessOptions {
  /** Absent: the page is open, as the listener is internal. */
  token?: StatusToken | undefined;
  /** `--public-url` is https: the cookie is marked Secure. */
  secureCookie: boolean;
  now: () => number;
}

export class Access {
  readonly #options: AccessOptions;
  readonly #session: string | undefined;
  #failures: number[] = [];

  constructor(options: AccessOptions) {
    this.#options = options;
    this.#session = options.token?.session();
  }

  get open(): boolean {
    return this.#session === undefined;
  }

  /** A bearer token or the session cookie (or no token configured). */
  allows(headers: { authorization?: string | undefined; cookie?: string | undefined }): boolean {
    if (this.#session === undefined) return true;
    const bearer = /^Bearer +(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    if (bearer !== undefined && this.#options.token?.matches(bearer) === true) return true;
    const cookie = cookieValue(headers.cookie, SESSION_COOKIE);
    return cookie !== undefined && timingSafeEqual(digest(cookie), digest(this.#session));
  }

  /** A login attempt: the cookie to set, 'wrong', or 'throttled' after too many wrong ones this minute. */
  login(token: string): { cookie: string } | 'wrong' | 'throttled' {
    const now = this.#options.now();
    this.#failures = this.#failures.filter((at) => now - at < WINDOW_MS);
    if (this.#failures.length >= LOGIN_FAILURES) return 'throttled';
    if (this.#session === undefined || this.#options.token?.matches(token) !== true) {
      this.#failures.push(now);
      return 'wrong';
    }
    return { cookie: this.#cookie(this.#session, SESSION_SECONDS) };
  }

  /** The cookie that ends a session in this browser. */
  logout(): string {
    return this.#cookie('', 0);
  }

  #cookie(value: string, maxAge: number): string {
    const secure = this.#options.secureCookie ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
  }
}

/** Compared as digests: equal lengths for timingSafeEqual, whatever was sent. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
