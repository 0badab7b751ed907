/**
 * Numbers given as text (flags, environment variables): whole numbers and
 * seconds. A bad value is a `usage` SitesyncError naming where it came from
 * (`option`: a flag or a variable) and the value.
 */
import { SitesyncError } from '../model/errors.js';

export interface WholeNumberRange {
  min: number;
  /** With a maximum, the message names the range. */
  max?: number;
  /** What the number counts, for the message ("of requests per minute (0: no limit)"); default "≥ min". */
  meaning?: string;
}

/** Digits only (surrounding spaces allowed): no sign, fraction, exponent or hex. */
export function wholeNumberOption(option: string, text: string, range: WholeNumberRange): number {
  const value = Number(text);
  const { min, max } = range;
  if (/^\s*\d+\s*$/.test(text) && value >= min && (max === undefined || value <= max)) return value;
  if (max !== undefined) {
    throw new SitesyncError('usage', `${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  throw new SitesyncError(
    'usage',
    `${option} ${JSON.stringify(text)}: expected a whole number ${range.meaning ?? `≥ ${min}`}`,
  );
}

/** A number of seconds, fractions allowed (`0.5`, `90`), within `range`: --timeout and its variable. */
export function secondsOption(option: string, text: string, range: { min: number; max: number }): number {
  const value = Number(text);
  if (/^\s*\d+(\.\d+)?\s*$/.test(text) && value >= range.min && value <= range.max) return value;
  throw new SitesyncError(
    'usage',
    `${option} must be a number of seconds from ${range.min} to ${range.max}, not ${JSON.stringify(text)}`,
  );
}
