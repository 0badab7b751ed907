/**
 * Quirks mode (phpanalytics-v31): the deployed service's validation where it differs from the
 * contract's. Laravel runs every rule of a field (unless one says bail), so a field can fail
 * twice; its size rules measure text that is no number by its length; PHP coerces scalars to text
 * and fails with a TypeError (500) on an array where a string is needed; MariaDB's TEXT columns
 * take 65,535 bytes, and a longer value fails the INSERT (500).
 */
import { isValidServiceDomain } from '../../model/domain.js';
import type { WebsiteValues } from '../store/contract.js';
import { serverError } from './http-error.js';

/**
 * The deployed domain rule, as observed (its source is not public): it looks for a host name at
 * the end of the value only, so anything may come before the last two labels (`exa mple.com`,
 * `-dash.example`, `a_b.example`, unicode, a `?`), while the last label has letters, digits and
 * inner hyphens and is not all digits. A trailing dot is allowed; labels take 63 characters at
 * most, the whole 255.
 */
const HOST_NAME_AT_END = /[\p{L}\p{N}_]\.(?!\d+\.?$)[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.?$/u;

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

/** MariaDB's TEXT holds 65,535 bytes. */
const TEXT_COLUMN_BYTES = 65_535;

/** A value too long for its column: the deployed service's INSERT or UPDATE fails, 500 ("Data too long"). */
export function assertFitsColumns(values: Partial<Pick<WebsiteValues, 'excludeParams' | 'excludeIps'>>): void {
  for (const text of [values.excludeParams, values.excludeIps]) {
    if (typeof text === 'string' && Buffer.byteLength(text) > TEXT_COLUMN_BYTES) throw serverError();
  }
}
