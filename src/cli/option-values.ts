/**
 * Command-line values that several commands share: whole numbers (--port,
 * --parallelism, --rate-limit, --max-deletes, ...), seconds (--timeout) and domain globs (--only,
 * --skip, --allow-delete). A bad value is a `usage` SitesyncError naming the
 * option and the value. Also the options several commands declare alike
 * (--sync-write-only, --target). Nothing here loads the HTTP client: `validate` uses it.
 */
import { Option } from '@commander-js/extra-typings';
import { SitesyncError } from '../model/errors.js';
import { asciiGlob, isValidGlob } from '../model/glob.js';
import { parseWriteOnlySync, type WriteOnlySync } from '../plan/policy.js';
import { collect } from './repeatable.js';

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

/** The globs given to a repeatable option, checked; `what` names what one should be. */
export function globsOption(option: string, globs: string[] | undefined, what = 'a domain glob'): string[] {
  const written = globs ?? [];
  const ascii = written.map(asciiGlob);
  const bad = written.find((_, index) => !isValidGlob(ascii[index] as string));
  if (bad !== undefined) {
    throw new SitesyncError('usage', `${option} ${JSON.stringify(bad)}: not ${what} (letters, digits, . - _ * ?)`);
  }
  return ascii;
}

/**
 * `--sync-write-only [FIELD|DOMAIN|GLOB]`, declared alike by plan and apply:
 * repeatable, each value may be a comma-separated list; the bare flag is `*`
 * (every site, every field), so flags combine the same in any order.
 */
export function syncWriteOnlyOption() {
  return new Option(
    '--sync-write-only [fields-or-sites]',
    're-send configured write-only values: of every site, or only these fields (password, exclude_params) and/or domains/globs (repeatable, comma lists)',
  )
    .preset('*')
    .argParser(collect);
}

/** commander's value of --sync-write-only → the selection, or false when not given. */
export function readSyncWriteOnly(values: string[] | boolean | undefined): WriteOnlySync | false {
  if (values === undefined || values === false) return false;
  return values === true ? { fields: [], sites: [] } : parseWriteOnlySync(values);
}

/** --target, for the commands that run on targets (plan, apply, export, validate). */
export function targetOption() {
  return new Option('--target <name>', 'only this target of `targets:` (repeatable, globs allowed)').argParser(collect);
}
