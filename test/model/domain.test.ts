import { describe, expect, it } from 'vitest';
import { canonicalDomain, indexLiveByDomain, isCanonicalDomain, searchSpellings } from '../../src/model/domain.js';
import { asciiGlob } from '../../src/model/glob.js';

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
  ])('%s → %j', (domain, expected) => {
    expect(searchSpellings(domain)).toEqual(expected);
  });
});

describe('asciiGlob: a glob written in Unicode matches canonical (punycode) domains', () => {
  it.each([
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['b?cher.example', 'b?cher.example'],
    ['bü*.example', 'bü*.example'],
  ])('%s → %s', (glob, expected) => {
    expect(asciiGlob(glob)).toBe(expected);
  });
});
