/** The canonical forms in `FIELDS`, field by field: literal inputs, literal outputs. */
import { describe, expect, it } from 'vitest';
import { canonicalIpEntry, FIELDS } from '../../src/model/website.js';
import { canonicalOf } from '../../src/plan/compare.js';

describe('FIELDS.email / FIELDS.excludeBots: any integer is read; email is on only at 1, exclude_bots at any non-zero', () => {
  it.each([
    [7, false, true],
    [-1, false, true],
    [1, true, true],
    [0, false, false],
    ['7', false, true],
    [' 1 ', true, true],
    ['01', true, true],
    [' -12 ', false, true],
    ['00', false, false],
    ['0', false, false],
    [null, false, false],
    [true, true, true],
    ['false', false, false],
    ['', false, false],
  ])('%j → email %j, exclude_bots %j', (raw, email, excludeBots) => {
    // The service sends reports only WHERE email = 1; it excludes bots on PHP truthiness.
    expect(FIELDS.email.canonical(raw)).toBe(email);
    expect(FIELDS.excludeBots.canonical(raw)).toBe(excludeBots);
  });

  it.each([[1.5], ['yes'], [{}], [Number.NaN]])('%j is unreadable', (raw) => {
    expect(FIELDS.email.canonical(raw)).toBeUndefined();
    expect(FIELDS.excludeBots.canonical(raw)).toBeUndefined();
  });

  it('favorite stays 0/1 only', () => {
    expect(FIELDS.favorite.canonical(7)).toBeUndefined();
  });
});

describe('FIELDS.excludeIps: IPv6 compressed and lowercase, everything else as written', () => {
  it.each([
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['FE80::A', 'fe80::a'],
    ['::1', '::1'],
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['Not-An-IP', 'Not-An-IP'],
    ['ABC:XYZ', 'ABC:XYZ'],
  ])('%s → %s', (entry, expected) => {
    expect(canonicalIpEntry(entry)).toBe(expected);
  });

  it('the same addresses written differently are one canonical list', () => {
    expect(FIELDS.excludeIps.canonical('2001:DB8:0:0::1\r\n2001:db8::1\n10.0.0.1')).toEqual([
      '10.0.0.1',
      '2001:db8::1',
    ]);
  });

  it("the planner's fast path does not take a lowercase but uncompressed IPv6 list as canonical", () => {
    expect(canonicalOf('excludeIps', ['2001:db8:0:0::1'])).toEqual(['2001:db8::1']);
    expect(canonicalOf('excludeIps', ['Not-An-IP'])).toEqual(['Not-An-IP']);
  });
});

describe('FieldSpec.isCanonical and formatValue', () => {
  it.each([
    ['privacy', 2, 'password'],
    ['email', '1', 'true'],
    ['excludeBots', null, 'false'],
    ['excludeParams', 'b\r\na\n', '[a, b]'],
    ['excludeIps', '2001:DB8:0:0::1', '[2001:db8::1]'],
    ['favorite', 0, 'false'],
  ] as const)('%s: a raw value is not canonical; its canonical form is, and both format alike', (name, raw, text) => {
    const spec = FIELDS[name];
    expect(spec.isCanonical(raw)).toBe(false);
    expect(spec.isCanonical(spec.canonical(raw))).toBe(true);
    expect(spec.formatValue(raw)).toBe(text);
    expect(spec.formatValue(spec.canonical(raw))).toBe(text);
    expect(spec.formatValue(undefined)).toBe('(unknown)');
  });
});
