/**
 * Domain identity. The service normalises every domain before it validates and
 * stores it; sitesync must do the same on the configuration side, or every plan
 * would re-create `www.Example.com` forever. Pure functions; no I/O.
 */
import { domainToASCII, domainToUnicode } from 'node:url';

const MAX_DOMAIN_LENGTH = 255;
// The service's rule: dotted hostname (labels 1..63, alphanumeric at both ends,
// hyphens inside), at least one dot, last label not all digits; or an IPv4 address.
const HOSTNAME = /^(?:[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?\.)+(?!\d+$)[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Exactly what the service does before validation: lowercase, drop http(s)://,
 * and when the domain then starts with `www.`, remove EVERY `www.` in it (PHP
 * `str_replace`): `www.www.x.example` is stored as `x.example`.
 */
export function serviceNormalizeDomain(input: string): string {
  let domain = input.trim().toLowerCase();
  domain = domain.replace(/^https?:\/\//, '');
  if (domain.startsWith('www.')) domain = domain.replaceAll('www.', '');
  return domain;
}

/** The service's validation rule, applied to an already normalised domain. */
export function isValidServiceDomain(domain: string): boolean {
  if (domain.length === 0 || domain.length > MAX_DOMAIN_LENGTH) return false;
  return IPV4.test(domain) || HOSTNAME.test(domain);
}

// What the deployed service actually stores (looser than its documented rule):
// underscores in labels other than the last, and (after canonicalDomain) punycode labels.
const STORABLE_HOSTNAME = /^(?:[a-z\d_](?:[a-z\d_-]{0,61}[a-z\d_])?\.)+(?!\d+$)[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?$/;

/**
 * Whether the deployed service would store this canonical domain. sitesync
 * refuses only what the service refuses: whatever it holds can be listed,
 * exported, planned and protected; an odd shape that passes here but not
 * `isValidServiceDomain` is only warned about.
 */
export function isStorableDomain(domain: string): boolean {
  if (isValidServiceDomain(domain)) return true;
  return domain.length > 0 && domain.length <= MAX_DOMAIN_LENGTH && STORABLE_HOSTNAME.test(domain);
}

/**
 * Whether a domain sitesync will not create (not `isStorableDomain`) may
 * still name a website the deployed service already holds: it stores odd
 * shapes its own rule should refuse (`-dash.example`, `exa mple.com`, a `?`
 * for an undecodable byte; issue 24). Such a site can be exported, adopted
 * and planned, never created. Still refused: no dot, a port or path (`:`,
 * `/`, `@`, `#`, `\`), control characters, an environment reference, over
 * 255 characters.
 */
export function isAdoptableDomain(domain: string): boolean {
  if (isStorableDomain(domain)) return true;
  return (
    domain.length <= MAX_DOMAIN_LENGTH &&
    /[^.]\.[^.]/.test(domain) &&
    !/[\x00-\x1f\x7f/:@#\\]/.test(domain) &&
    !domain.includes('${')
  );
}

/**
 * The canonical form sitesync uses as identity: the service's normalisation,
 * plus what a person writes that the service would store differently or
 * refuse: a trailing dot, and internationalised names (to punycode).
 */
export function canonicalDomain(input: string): string {
  let domain = serviceNormalizeDomain(input);
  if (domain.endsWith('.')) domain = domain.slice(0, -1);
  if (/[^\x00-\x7f]/.test(domain)) {
    const ascii = domainToASCII(domain);
    if (ascii !== '') domain = ascii;
  }
  return domain;
}

/**
 * What to `search` for (a case-insensitive substring match) to find every site
 * whose canonical domain is `domain`, whichever spelling the service stored
 * (it stores a domain as sent): the ASCII form finds it in any case, with a
 * trailing dot or a leading `www.`; an internationalised domain may also be
 * stored in Unicode, which no ASCII substring finds, so that form is searched
 * too. Other spellings of an IDN (partly punycode, decomposed accents) are
 * not: a search that finds none of these may have missed the site.
 */
export function searchSpellings(domain: string): string[] {
  const ascii = canonicalDomain(domain);
  const unicode = domainToUnicode(ascii);
  return unicode === '' || unicode === ascii ? [ascii] : [ascii, unicode];
}

// A domain canonicalDomain leaves unchanged (the form the service stores): a fast path for 100,000 live sites.
const PLAIN_CANONICAL = /^(?!www\.)[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/** Whether `domain` is already in canonical form (canonicalDomain would return it unchanged). */
export function isCanonicalDomain(domain: string): boolean {
  return PLAIN_CANONICAL.test(domain) || canonicalDomain(domain) === domain;
}

/** Two or more live sites that share one canonical domain: `kept` is the one sitesync manages. */
export interface DuplicateDomain {
  domain: string;
  kept: number;
  /** The other ids, ascending. */
  others: number[];
}

export interface LiveIndex<T> {
  /** Live sites by canonical domain. */
  byDomain: Map<string, T>;
  /** Canonical domains held more than once, in domain order. */
  duplicates: DuplicateDomain[];
}

/**
 * THE identity rule for live sites: keyed by canonical domain; should the
 * service hold a domain twice (`Example.com` and `example.com.`), the oldest
 * site (lowest id) is the one sitesync manages, whatever the listing order.
 */
export function indexLiveByDomain<T extends { id: number; domain: string }>(live: readonly T[]): LiveIndex<T> {
  const index = new Map<string, T>();
  const others = new Map<string, number[]>();
  // An index loop: for...of allocates a step object per site until optimised, and this runs once per listing.
  for (let i = 0; i < live.length; i++) {
    const site = live[i] as T;
    const domain = isCanonicalDomain(site.domain) ? site.domain : canonicalDomain(site.domain);
    const seen = index.get(domain);
    if (seen === undefined) {
      index.set(domain, site);
      continue;
    }
    const list = others.get(domain) ?? [];
    others.set(domain, list);
    if (site.id < seen.id) {
      list.push(seen.id);
      index.set(domain, site);
    } else list.push(site.id);
  }
  const duplicates = [...others]
    .map(([domain, ids]) => ({ domain, kept: (index.get(domain) as T).id, others: ids.sort((a, b) => a - b) }))
    .sort(byDomain);
  return { byDomain: index, duplicates };
}

/**
 * Orders by domain, by UTF-16 code unit rather than locale, so plans, exports
 * and digests come out the same on every machine.
 */
export function byDomain(a: { domain: string }, b: { domain: string }): number {
  return a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0;
}
