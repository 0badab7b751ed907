/**
 * Globs on canonical domains: `*` matches any run of characters (dots too),
 * `?` exactly one. Used for manage/protect/--only/--skip/--allow-delete.
 */

import { domainToASCII } from 'node:url';

const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    const body = glob
      .toLowerCase()
      .split('')
      .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`);
    cache.set(glob, re);
  }
  return re;
}

export function matchesGlob(domain: string, glob: string): boolean {
  return globToRegExp(glob).test(domain);
}

export function matchesAny(domain: string, globs: readonly string[]): boolean {
  return globs.some((glob) => matchesGlob(domain, glob));
}

/** Characters a glob may contain: those of a domain, plus `*` and `?`. */
export function isValidGlob(glob: string): boolean {
  return /^[a-z0-9.*?_-]+$/i.test(glob);
}

/**
 * A glob as written by a person, on canonical domains: a label written in
 * Unicode (`bücher.example`) becomes its punycode form, as the domain does;
 * a label that mixes Unicode and `*`/`?` cannot be converted and stays as is.
 */
export function asciiGlob(glob: string): string {
  if (!/[^\x00-\x7f]/.test(glob)) return glob;
  return glob
    .split('.')
    .map((label) => (/[*?]/.test(label) ? label : domainToASCII(label) || label))
    .join('.');
}
