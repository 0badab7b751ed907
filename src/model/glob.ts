/**
 * Globs on canonical domains: `*` matches any run of characters (dots too),
 * `?` exactly one. Used for manage/protect/--only/--skip/--allow-delete.
 */

import { domainToASCII } from 'node:url';
import { canonicalDomain } from './domain.js';

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
 * A glob as written by a person, in the canonical form domains are matched in
 * (`canonicalDomain`): an exact domain is canonicalised whole (`Trail.example.`,
 * `www.trail.example` and `trail.example` name one site). A glob with `*` or `?`
 * only loses its case and a trailing dot, and a label written in Unicode
 * (`*.bücher.example`) becomes punycode; `www.` and `http://` stay, so `www.*` never
 * widens to `*`. A label that mixes Unicode and `*`/`?` cannot be converted and stays as is.
 */
export function canonicalGlob(glob: string): string {
  if (!/[*?]/.test(glob)) return canonicalDomain(glob) || glob;
  const text = glob.trim().toLowerCase().replace(/\.$/, '');
  if (!/[^\x00-\x7f]/.test(text)) return text;
  return text
    .split('.')
    .map((label) => (/[*?]/.test(label) ? label : domainToASCII(label) || label))
    .join('.');
}
