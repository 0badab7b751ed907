/**
 * Command-line values that several commands share: whole numbers (--port,
 * --parallelism, --rate-limit, --max-deletes, ...), seconds (--timeout) and domain globs (--only,
 * --skip, --allow-delete). A bad value is a `usage` SitesyncError naming the
 * option and the value. Also the options several commands declare alike
 * (--sync-write-only, --target). Nothing here loads the HTTP client: `validate` uses it.
 */
import { Option } from '@commander-js/extra-typings';
import { SitesyncError } from '../model/errors.js';
import { canonicalGlob, isValidGlob } from '../model/glob.js';
import { parseWriteOnlySync, type WriteOnlySync } from '../plan/policy.js';

/** commander argParser for a repeatable option: every value, in order. */
export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

import { wholeNumberOption } from '../engine/numbers.js';

export { secondsOption, type WholeNumberRange, wholeNumberOption } from '../engine/numbers.js';

/** The globs given to a repeatable option, checked; `what` names what one should be. */
export function globsOption(option: string, globs: string[] | undefined, what = 'a domain glob'): string[] {
  const written = globs ?? [];
  const canonical = written.map(canonicalGlob);
  const bad = written.find((_, index) => !isValidGlob(canonical[index] as string));
  if (bad !== undefined) {
    throw new SitesyncError('usage', `${option} ${JSON.stringify(bad)}: not ${what} (letters, digits, . - _ * ?)`);
  }
  return canonical;
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

/** --target-parallelism: targets run at once (default 4). */
export function targetParallelism(text: string | undefined): number {
  return wholeNumberOption('--target-parallelism', text ?? '4', { min: 1 });
}
