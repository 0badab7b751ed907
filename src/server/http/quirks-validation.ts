/**
 * Quirks mode (phpanalytics-v31): the deployed service's validation where it differs from the
 * contract's. Laravel runs every rule of a field (unless one says bail), so a field can fail
 * twice; its size rules measure text that is no number by its length; PHP coerces scalars to text
 * and fails with a TypeError (500) on an array where a string is needed; MariaDB's TEXT columns
 * take 65,535 bytes, and a longer value fails the INSERT (500).
 */
import { isValidServiceDomain } from '../../model/domain.js';
import { MAX_ID, type WebsiteValues } from '../store/contract.js';
import { serverError } from './http-error.js';

/**
 * The deployed domain rule, as observed (its source is not public): it looks for a host name at
 * the end of the value only, so anything may come before the last two labels (`exa mple.com`,
 * `-dash.example`, `a_b.example`, unicode, a `?`), while the last label has letters, digits and
 * inner hyphens and is not all digits, after a letter, digit, `_` or `?` (what mb_strtolower leaves of
 * a byte that is not UTF-8: `c-raw\xFC.example` is stored as `c-raw?.example`). A trailing dot is
 * allowed; labels take 63 characters at most, the whole 255.
 */
const HOST_NAME_AT_END = /[\p{L}\p{N}_?]\.(?!\d+\.?$)[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.?$/u;

export function isQuirksDomain(domain: string): boolean {
  if (domain.length > 255 || domain.split('.').some((label) => label.length > 63)) return false;
  return isValidServiceDomain(domain) || HOST_NAME_AT_END.test(domain);
}

/** `mb_strtolower($this->input('domain'))`: scalars become text, an array or object is a TypeError (500). */
export function quirksDomainValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) throw serverError();
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? '1' : null;
  return value;
}

/** PHP's is_numeric. */
const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i;
export const isPhpNumeric = (text: string): boolean => NUMERIC.test(text);

/** Laravel's size of a value that failed `integer`, against `between:min,max`. */
export function quirksSizeOutside(value: unknown, min: number, max: number): boolean {
  let size: number;
  if (Array.isArray(value)) size = value.length;
  else if (typeof value === 'object' && value !== null) size = Object.keys(value).length;
  else if (typeof value === 'number') size = value;
  else if (typeof value === 'string' && NUMERIC.test(value)) size = Number(value);
  else size = [...(typeof value === 'string' ? value : value === true ? '1' : '')].length;
  return size < min || size > max;
}

/** Laravel's `integer` rule (FILTER_VALIDATE_INT): JSON `true` is 1; text takes PHP's 64-bit range. */
export function quirksInteger(value: unknown): number | undefined {
  if (value === true) return 1;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !/^[+-]?\d{1,19}$/.test(value)) return undefined;
  const big = BigInt(value);
  return big >= -(2n ** 63n) && big < 2n ** 63n ? Number(value) : undefined;
}

/**
 * MariaDB comparing the integer `id` column with the text of the path: the text's leading number
 * (`1abc` is 1, `1e1` 10, `1.0` 1, `abc` 0). An id only when that number is one.
 */
export function mysqlId(text: string): number | undefined {
  const leading = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?/i.exec(text)?.[0];
  const value = leading === undefined ? 0 : Number(leading);
  return Number.isInteger(value) && value >= 1 && value <= MAX_ID ? value : undefined;
}

/** MariaDB's TEXT holds 65,535 bytes. */
const TEXT_COLUMN_BYTES = 65_535;
/** `email` is a TINYINT column (signed), in strict mode: a value past it fails the write. */
const TINYINT: [number, number] = [-128, 127];

/**
 * A value its column cannot hold: the deployed service's INSERT or UPDATE fails, 500 ("Data too
 * long", "Out of range value"), before anything is stored.
 */
export function assertFitsColumns(
  values: Partial<Pick<WebsiteValues, 'email' | 'excludeParams' | 'excludeIps'>>,
): void {
  for (const text of [values.excludeParams, values.excludeIps]) {
    if (typeof text === 'string' && Buffer.byteLength(text) > TEXT_COLUMN_BYTES) throw serverError();
  }
  const email = values.email;
  if (typeof email === 'number' && (email < TINYINT[0] || email > TINYINT[1])) throw serverError();
}
