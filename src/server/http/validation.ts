/**
 * Request bodies → stored values, with the service's Laravel-style errors
 * (field → messages). Runs before any lookup, as the real service does; the
 * checks that need the stored website (password on update) are in
 * `missingPassword`. Unknown fields are ignored; strings but the password are
 * trimmed; empty strings read as null.
 */
import { isValidServiceDomain, serviceNormalizeDomain } from '../../model/domain.js';
import type { WebsiteRecord, WebsiteValues } from '../store/contract.js';
import { FLAGS, LIMITS } from './fields.js';
import type { ServerMode } from './mode.js';
import { isQuirksDomain, quirksDomainValue, quirksInteger, quirksSizeOutside } from './quirks-validation.js';

export type FieldErrors = Record<string, string[]>;

/** Website values as validated: the password is still clear text (hashed by the route). */
export type ValidatedValues = Omit<WebsiteValues, 'passwordHash'> & { password: string | null };

export type Validated<T> = { ok: true; value: T; echo: Record<string, unknown> } | { ok: false; errors: FieldErrors };

const ECHOED = ['privacy', 'email', 'exclude_bots', 'exclude_ips'] as const;
const TRUE_VALUES = new Set<unknown>([true, 1, '1', 'true']);
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'false']);
const PHP_FALSY = new Set<unknown>([null, false, 0, '0']);
const FAVORITED_AT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
/** NUL (PostgreSQL's text cannot hold it) and UTF-16 surrogates without their pair (no character at all). */
const UNSTORABLE = /[\0\p{Cs}]/u;

/** Text no backend stores as sent: refused on write, found nowhere by a search. */
export const isUnstorable = (text: string) => UNSTORABLE.test(text);

export const MESSAGES = {
  passwordRequired: 'The password field is required when privacy is 2.',
  quirksPasswordRequired: 'The password field is required.',
  quirksInvalidDomain: 'Invalid domain name.',
  unauthorized: 'This action is unauthorized.',
  domainTaken: 'The domain has already been taken.',
  tooManyWebsites: 'You created too many websites.',
};

const range = (name: keyof typeof FLAGS): [number, number] => [FLAGS[name].min, FLAGS[name].max];

/** Reads one field: undefined when absent; trimmed; '' → null. */
function read(body: Record<string, unknown>, field: string): unknown {
  if (!Object.hasOwn(body, field)) return undefined;
  let value = body[field];
  if (typeof value === 'string') {
    if (field !== 'password') value = value.trim();
    if (value === '') value = null;
  }
  return value;
}

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^[+-]?\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

function isDateTime(text: string): boolean {
  const match = FAVORITED_AT.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, ...number[]];
  const date = new Date(Date.UTC(2000, month! - 1, day, hour, minute, second));
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999, and the pattern allows 0000-0099.
  date.setUTCFullYear(year, month! - 1, day);
  return date.toISOString().slice(0, 19) === text;
}

/** Collects the errors of one request; each check returns the value or records a message. */
class Checker {
  readonly errors: FieldErrors = {};

  constructor(readonly mode: ServerMode = 'normal') {}

  fail(field: string, message: string): undefined {
    this.errors[field] = [...(this.errors[field] ?? []), message];
    return undefined;
  }

  integer(field: string, value: unknown, min?: number, max?: number): number | undefined {
    const label = field.replace(/_/g, ' ');
    const quirks = this.mode === 'phpanalytics-v31';
    const number = quirks ? quirksInteger(value) : toInteger(value);
    const between = `The ${label} field must be between ${min} and ${max}.`;
    if (number === undefined) {
      this.fail(field, `The ${label} field must be an integer.`);
      // Laravel also runs `between`, on the text's length when it is no number.
      if (quirks && min !== undefined && max !== undefined && quirksSizeOutside(value, min, max)) {
        this.fail(field, between);
      }
      return undefined;
    }
    if (min !== undefined && max !== undefined && (number < min || number > max)) return this.fail(field, between);
    return number;
  }

  text(field: string, value: unknown): string | null | undefined {
    if (typeof value === 'string' && isUnstorable(value)) return this.unstorable(field);
    if (value === null || typeof value === 'string') return value;
    return this.fail(field, `The ${field.replace(/_/g, ' ')} field must be a string.`);
  }

  /** The same 422 on every backend, in both modes (the deployed service's MariaDB would store them). */
  unstorable(field: string): undefined {
    return this.fail(
      field,
      `The ${field.replace(/_/g, ' ')} field must not contain NUL characters or unpaired surrogates.`,
    );
  }

  password(value: unknown): string | null | undefined {
    const text = this.text('password', value);
    // Characters are code points: an emoji is one character, not two UTF-16 units.
    if (typeof text === 'string' && [...text].length > LIMITS.password) {
      return this.fail('password', `The password field must not be greater than ${LIMITS.password} characters.`);
    }
    return text;
  }

  favoritedAt(value: unknown): string | null | undefined {
    const text = this.text('favorited_at', value);
    if (typeof text === 'string' && !isDateTime(text)) {
      return this.fail('favorited_at', 'The favorited at field must match the format Y-m-dTH:i:s.');
    }
    return text;
  }

  domain(value: unknown): string | undefined {
    const quirks = this.mode === 'phpanalytics-v31';
    if (quirks) value = quirksDomainValue(value);
    if (value === undefined || value === null) return this.fail('domain', 'The domain field is required.');
    if (typeof value !== 'string') return this.fail('domain', 'The domain field must be a string.');
    if (isUnstorable(value)) return this.unstorable('domain');
    const domain = serviceNormalizeDomain(value);
    const tooLong = `The domain field must not be greater than ${LIMITS.domain} characters.`;
    if (quirks) {
      // Laravel runs every rule of the field: a long domain fails `max` and the domain rule.
      if (domain.length > LIMITS.domain) this.fail('domain', tooLong);
      return isQuirksDomain(domain) ? domain : this.fail('domain', MESSAGES.quirksInvalidDomain);
    }
    if (domain.length > LIMITS.domain) return this.fail('domain', tooLong);
    if (!isValidServiceDomain(domain)) return this.fail('domain', 'The domain must be a valid domain name.');
    return domain;
  }

  result<T>(value: T, body: Record<string, unknown>): Validated<T> {
    if (Object.keys(this.errors).length > 0) return { ok: false, errors: this.errors };
    const echo: Record<string, unknown> = {};
    for (const field of ECHOED) if (Object.hasOwn(body, field)) echo[field] = read(body, field);
    return { ok: true, value, echo };
  }
}

/** Store: defaults of the contract (or, in quirks mode, the real service's NULLs). */
export function validateStore(
  body: Record<string, unknown>,
  mode: ServerMode,
): Validated<ValidatedValues & { domain: string }> {
  const check = new Checker(mode);
  const quirks = mode === 'phpanalytics-v31';
  const field = (name: string) => read(body, name);
  // Absent → the default. Empty → the default here, NULL on the real service.
  const orDefault = (name: string, fallback: number | null, range?: [number, number]) => {
    const value = field(name);
    if (value === undefined) return fallback;
    if (value === null) return quirks ? null : fallback;
    return check.integer(name, value, ...(range ?? [])) ?? null;
  };

  const domain = check.domain(field('domain'));
  const privacy = orDefault('privacy', quirks ? null : FLAGS.privacy.default, range('privacy'));
  const password = check.password(field('password') ?? null) ?? null;
  if (privacy === 2 && password === null && !check.errors.password) {
    check.fail('password', quirks ? MESSAGES.quirksPasswordRequired : MESSAGES.passwordRequired);
  }
  // The real service's rule takes any integer for email (its TINYINT column then refuses most: 500).
  const email = quirks ? orDefault('email', null) : orDefault('email', FLAGS.email.default, range('email'));
  const excludeBots = orDefault('exclude_bots', FLAGS.exclude_bots.default, range('exclude_bots'));
  const excludeParams = check.text('exclude_params', field('exclude_params') ?? null) ?? null;
  const excludeIps = check.text('exclude_ips', field('exclude_ips') ?? null) ?? null;
  const favoritedAt = quirks ? null : (check.favoritedAt(field('favorited_at') ?? null) ?? null);
  const values = {
    domain: domain ?? '',
    privacy,
    password,
    email,
    excludeBots,
    excludeParams,
    excludeIps,
    favoritedAt,
  };
  return check.result(values, body);
}

/** Update: only the fields sent; `domain` is ignored. `favorite=0/1` (or favorited_at) sets the favourite. */
export function validateUpdate(
  body: Record<string, unknown>,
  mode: ServerMode,
  now: Date,
): Validated<Partial<ValidatedValues>> {
  const check = new Checker(mode);
  const quirks = mode === 'phpanalytics-v31';
  const changes: Partial<ValidatedValues> = {};
  const field = (name: string) => read(body, name);
  const flag = (name: keyof typeof FLAGS) => {
    const value = field(name);
    if (value === undefined) return undefined;
    if (value === null) return check.fail(name, `The ${name.replace(/_/g, ' ')} field is required.`);
    return check.integer(name, value, ...range(name));
  };

  changes.privacy = flag('privacy');
  if (field('password') !== undefined) changes.password = check.password(field('password'));
  if (!quirks) changes.email = flag('email');
  else if (field('email') !== undefined) {
    // The real service's rule takes any integer, or null (its column then refuses most: 500).
    changes.email = field('email') === null ? null : check.integer('email', field('email'));
  }
  // The real service's update rule has no `required`: an empty exclude_bots fails `integer`.
  const excludeBots = field('exclude_bots');
  changes.excludeBots =
    quirks && excludeBots !== undefined
      ? check.integer('exclude_bots', excludeBots, ...range('exclude_bots'))
      : flag('exclude_bots');
  for (const [name, key] of [
    ['exclude_params', 'excludeParams'],
    ['exclude_ips', 'excludeIps'],
  ] as const) {
    if (field(name) !== undefined) changes[key] = check.text(name, field(name));
  }

  const stamp = now.toISOString().slice(0, 19);
  const favorite = field('favorite');
  if (favorite !== undefined) {
    if (quirks) {
      // PHP truthiness: only null, '' and '0' are false; the string "false" is true.
      changes.favoritedAt = PHP_FALSY.has(favorite) ? null : stamp;
    } else if (TRUE_VALUES.has(favorite)) {
      changes.favoritedAt = stamp;
    } else if (FALSE_VALUES.has(favorite)) {
      changes.favoritedAt = null;
    } else {
      check.fail('favorite', 'The favorite field must be true or false.');
    }
  }
  if (!quirks && field('favorited_at') !== undefined) changes.favoritedAt = check.favoritedAt(field('favorited_at'));

  for (const key of Object.keys(changes) as (keyof ValidatedValues)[]) {
    if (changes[key] === undefined) delete changes[key];
  }
  return check.result(changes, body);
}

/** Normal mode: privacy 2 after the update needs a password, sent now or stored before. */
export function missingPassword(changes: Partial<ValidatedValues>, website: WebsiteRecord, mode: ServerMode): boolean {
  if (mode === 'phpanalytics-v31') return false;
  const privacy = changes.privacy ?? website.privacy;
  const password = 'password' in changes ? changes.password : website.passwordHash;
  return privacy === 2 && (password === null || password === undefined);
}
