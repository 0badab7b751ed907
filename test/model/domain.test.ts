import { describe, expect, it } from 'vitest';
import {
  byDomain,
  canonicalDomain,
  indexLiveByDomain,
  isAdoptableDomain,
  isCanonicalDomain,
  isStorableDomain,
  isValidServiceDomain,
  searchSpellings,
  serviceNormalizeDomain,
} from '../../src/model/domain.js';
import { canonicalGlob } from '../../src/model/glob.js';

const site = (id: number, domain: string) => ({ id, domain });

describe('isCanonicalDomain', () => {
  it.each([
    ['example.com', true],
    ['shop.example.co.uk', true],
    ['xn--bcher-kva.example', true],
    ['10.0.0.1', true],
    ['Example.com', false],
    ['example.com.', false],
    ['www.example.com', false],
    ['https://example.com', false],
    [' example.com', false],
    ['bücher.example', false],
  ])('%s → %s, the same answer as canonicalDomain', (domain, expected) => {
    expect(isCanonicalDomain(domain)).toBe(expected);
    expect(canonicalDomain(domain) === domain).toBe(expected);
  });
});

describe('indexLiveByDomain: one site per canonical domain, the lowest id wins', () => {
  it.each([
    { name: 'lowest id listed first', live: [site(1, 'Example.com'), site(2, 'example.com.')], kept: 1, others: [2] },
    { name: 'lowest id listed last', live: [site(2, 'example.com.'), site(1, 'Example.com')], kept: 1, others: [2] },
    {
      name: 'three spellings, lowest in the middle',
      live: [site(9, 'www.example.com'), site(3, 'EXAMPLE.COM'), site(5, 'https://example.com')],
      kept: 3,
      others: [5, 9],
    },
  ])('$name', ({ live, kept, others }) => {
    const index = indexLiveByDomain(live);
    expect(index.byDomain.get('example.com')?.id).toBe(kept);
    expect(index.byDomain.size).toBe(1);
    expect(index.duplicates).toEqual([{ domain: 'example.com', kept, others }]);
  });

  it('reports no duplicates when every canonical domain is held once, and keys by canonical domain', () => {
    const index = indexLiveByDomain([site(2, 'b.com'), site(1, 'WWW.A.com')]);
    expect([...index.byDomain.keys()]).toEqual(['b.com', 'a.com']);
    expect(index.duplicates).toEqual([]);
  });

  it('lists duplicates in domain order', () => {
    const index = indexLiveByDomain([site(1, 'b.com'), site(2, 'B.com'), site(3, 'a.com'), site(4, 'a.com.')]);
    expect(index.duplicates.map((entry) => entry.domain)).toEqual(['a.com', 'b.com']);
  });
});

describe('searchSpellings: what to search for to find a site however the service stored it', () => {
  it.each([
    ['Example.com.', ['example.com']],
    ['www.shop.example', ['shop.example']],
    ['xn--bcher-kva.example', ['xn--bcher-kva.example', 'bücher.example']],
    ['BÜCHER.example.', ['xn--bcher-kva.example', 'bücher.example']],
    ['exa mple.cöm', ['exa mple.cöm']], // no ASCII form: never an empty search (which would match every site)
  ])('%s → %j', (domain, expected) => {
    expect(searchSpellings(domain)).toEqual(expected);
  });
});

describe('canonicalGlob: a glob as written matches canonical domains', () => {
  it.each([
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['b?cher.example', 'b?cher.example'],
    ['bü*.example', 'bü*.example'],
    // Issue 37: an exact domain in any spelling the service stores or a person writes.
    ['trail.example.', 'trail.example'],
    ['WWW.Trail.Example', 'trail.example'],
    ['https://trail.example', 'trail.example'],
    // A wildcard glob keeps www. and a scheme (never widened), loses case and a trailing dot.
    ['www.*', 'www.*'],
    ['*.Trail.Example.', '*.trail.example'],
  ])('%s → %s', (glob, expected) => {
    expect(canonicalGlob(glob)).toBe(expected);
  });
});

describe('serviceNormalizeDomain: what the service does before it validates and stores', () => {
  it.each([
    ['  HTTPS://WWW.Example.com ', 'example.com'],
    ['http://shop.example', 'shop.example'],
    ['www.www.x.example', 'x.example'], // every www. once the domain starts with one (PHP str_replace)
    ['www.shop.www.example', 'shop.example'],
    ['shop.www.example', 'shop.www.example'], // not starting with www.: kept
    ['wwwexample.com', 'wwwexample.com'],
    ['ftp://example.com', 'ftp://example.com'],
    ['xhttps://example.com', 'xhttps://example.com'],
  ])('%j → %s', (input, expected) => {
    expect(serviceNormalizeDomain(input)).toBe(expected);
  });
});

const label = (char: string, length = 63) => char.repeat(length);
/** 255 characters, the longest domain the service takes; one more character is refused. */
const LONGEST = [label('a'), label('b'), label('c'), label('d')].join('.');
const TOO_LONG = [label('a'), label('b'), label('c'), label('d', 62), 'e'].join('.');

describe('which domains the service validates, stores, or holds only from before', () => {
  // [domain, valid by the service's rule, storable by the deployed service, adoptable when already held]
  it.each([
    ['example.com', true, true, true],
    ['a.b', true, true, true],
    ['a-b.example', true, true, true],
    ['123.example', true, true, true],
    ['a1.com2', true, true, true],
    [`${label('x')}.com`, true, true, true],
    [LONGEST, true, true, true],
    ['0.0.0.0', true, true, true],
    ['255.255.255.255', true, true, true],
    ['192.168.1.10', true, true, true],
    ['249.200.199.9', true, true, true],
    ['a_b.example', false, true, true],
    ['_dmarc.example', false, true, true],
    [`_${label('x', 62)}.com`, false, true, true],
    [`_${LONGEST.slice(1)}`, false, true, true], // 255 characters with an underscore: stored
    [`-${LONGEST.slice(1)}`, false, false, true], // 255 characters the service holds from before
    ['xn--bcher-kva.example', true, true, true],
    ['', false, false, false],
    ['example', false, false, false],
    ['example.123', false, false, true],
    ['256.1.1.1', false, false, true],
    ['01.2.3.4', false, false, true],
    ['1.2.3', false, false, true],
    ['example.a_b', false, false, true],
    ['-dash.example', false, false, true],
    ['dash-.example', false, false, true],
    ['exa mple.com', false, false, true],
    ['a?b.example', false, false, true],
    ['a..b.example', false, false, true],
    [`${label('x', 64)}.com`, false, false, true],
    [TOO_LONG, false, false, false],
    [`_${TOO_LONG.slice(1)}`, false, false, false],
    ['.com', false, false, false],
    ['example.', false, false, false],
    ['example.com:8080', false, false, false],
    ['example.com/path', false, false, false],
    ['user@example.com', false, false, false],
    ['a#b.example', false, false, false],
    ['a\\b.example', false, false, false],
    ['a\tb.example', false, false, false],
    ['a\x7fb.example', false, false, false],
    ['$' + '{HOST}.example', false, false, false], // an environment reference left unexpanded
  ])('%j: valid %s, storable %s, adoptable %s', (domain, valid, storable, adoptable) => {
    expect(isValidServiceDomain(domain)).toBe(valid);
    expect(isStorableDomain(domain)).toBe(storable);
    expect(isAdoptableDomain(domain)).toBe(adoptable);
  });
});

describe('canonicalDomain', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['https://www.Example.com./', 'example.com./'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example.', 'xn--bcher-kva.example'],
    ['exa mple.cöm', 'exa mple.cöm'], // no ASCII form: kept as written (the service will refuse it)
  ])('%j → %s', (input, expected) => {
    expect(canonicalDomain(input)).toBe(expected);
  });
});

describe('byDomain orders by code unit, the same on every machine', () => {
  it('puts upper case before lower case and keeps equal domains together', () => {
    const sorted = ['b.com', 'a.com', 'B.com', 'a.com'].map((domain) => ({ domain })).sort(byDomain);
    expect(sorted.map((entry) => entry.domain)).toEqual(['B.com', 'a.com', 'a.com', 'b.com']);
    expect(byDomain({ domain: 'a.com' }, { domain: 'a.com' })).toBe(0);
    expect(byDomain({ domain: 'b.com' }, { domain: 'a.com' })).toBe(1);
    expect(byDomain({ domain: 'a.com' }, { domain: 'b.com' })).toBe(-1);
  });
});
