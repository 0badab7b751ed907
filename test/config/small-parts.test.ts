/** The small pure helpers of config/: IP syntax, edit distance, env references, paths. */
import { describe, expect, it } from 'vitest';
import { closest } from '../../src/config/did-you-mean.js';
import { hasReference, referenceName, refusedVariable } from '../../src/config/env.js';
import { isIpOrCidr } from '../../src/config/ip.js';
import { formatPath, pointerToPath } from '../../src/config/positions.js';
import { editDistance } from '../../src/model/text.js';

describe('isIpOrCidr', () => {
  it.each([
    ['203.0.113.7', true],
    ['198.51.100.0/24', true],
    ['0.0.0.0/0', true],
    ['2001:db8::/32', true],
    ['::1', true],
    ['::ffff:192.0.2.1', true],
    ['2001:db8::/128', true],
    ['10.0.0.0/33', false],
    ['2001:db8::/129', false],
    ['10.0.0.0/08', false],
    ['10.0.0.0/', false],
    ['1.2.3', false],
    ['256.1.1.1', false],
    ['fe80::1%eth0', false],
    ['example.com', false],
  ])('%s → %s', (entry, valid) => {
    expect(isIpOrCidr(entry)).toBe(valid);
  });
});

describe('did you mean', () => {
  it('measures edit distance', () => {
    expect([editDistance('emial', 'email'), editDistance('', 'abc'), editDistance('same', 'same')]).toEqual([2, 3, 0]);
  });

  it('suggests only close names, and treats - like _', () => {
    const known = ['privacy', 'exclude_bots', 'exclude_ips', 'favorite'];
    expect(closest('privcy', known)).toBe('privacy');
    expect(closest('exclude-bots', known)).toBe('exclude_bots');
    expect(closest('favourite', known)).toBe('favorite');
    expect(closest('colour', known)).toBeUndefined();
  });
});

describe('environment references', () => {
  it('finds a reference anywhere (a URL may hold none)', () => {
    expect([hasReference(`https://h/\${P}`), hasReference('https://h/$P'), hasReference('https://h/{P}')]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('reads a secret only from a SITESYNC_ variable, the prefix alone not being one', () => {
    expect(refusedVariable('SITESYNC_PW', 'a password', 'SITESYNC_X')).toBeUndefined();
    for (const name of ['PW', 'SITESYNC_', 'sitesync_PW', 'XSITESYNC_PW'])
      expect(refusedVariable(name, 'a password', 'SITESYNC_X')).toContain('starts with SITESYNC_');
  });

  it('recognises a whole-value reference only', () => {
    expect([referenceName(`\${PW}`), referenceName(`x\${PW}`), referenceName(`\${1PW}`)]).toEqual([
      'PW',
      undefined,
      undefined,
    ]);
  });
});

describe('paths', () => {
  it('turns a JSON pointer into the user path', () => {
    expect(pointerToPath('/websites/3/privacy')).toEqual(['websites', 3, 'privacy']);
    expect(formatPath(pointerToPath('/websites/3/exclude_ips/0'))).toBe('websites[3].exclude_ips[0]');
    expect(formatPath(pointerToPath('/a~1b/c~0d'))).toBe('["a/b"]["c~d"]');
    // Another key than a field name is quoted, escaped and cut (issue 33: a whole line of a file was quoted).
    expect(formatPath(['websites', 0, 'x-'.repeat(30)])).toBe(`websites[0]["${'x-'.repeat(12)}…"]`);
    expect(formatPath(['\u202Eroot:x'])).toBe('["\\u202eroot:x"]');
    expect(formatPath([])).toBe('');
  });
});
