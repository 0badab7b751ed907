// The settings issue 13 adds to websites.yaml: password_version (a rotation
// marker next to password) and unlisted_is_drift; both leave the digest of a
// file without them unchanged.
import { describe, expect, it } from 'vitest';
import { loadConfigTexts } from '../../src/config/index.js';
import { loadText } from './helpers.js';

const ENV = { SITESYNC_SHOP_PASSWORD: 'shop-password-0001' };
const SITE = (extra = '') =>
  `version: 1\n${extra}websites:\n  - domain: shop.example\n    privacy: password\n    password: \${SITESYNC_SHOP_PASSWORD}\n`;

describe('password_version', () => {
  it('is read on a site (text or number) and from defaults, only where a password is used', () => {
    const own = loadText(`${SITE()}    password_version: "2026-02"\n`, ENV);
    expect(own.errors).toEqual([]);
    expect(own.state?.websites[0]?.passwordVersion).toBe('2026-02');
    expect(loadText(`${SITE()}    password_version: 3\n`, ENV).state?.websites[0]?.passwordVersion).toBe('3');
    const fromDefaults = loadText(
      `${SITE('defaults:\n  password_version: v7\n')}  - domain: open.example\n    privacy: public\n`,
      ENV,
    );
    expect(fromDefaults.state?.websites.map((site) => [site.domain, site.passwordVersion])).toEqual([
      ['open.example', undefined],
      ['shop.example', 'v7'],
    ]);
  });

  it('an empty or non-scalar version is refused at its line', () => {
    const result = loadText(`${SITE()}    password_version: ""\n`, ENV);
    expect(result.lines).toEqual([expect.stringMatching(/^websites\.yaml:6:\d+: websites\[0\]\.password_version /)]);
    expect(loadText(`${SITE()}    password_version: [1]\n`, ENV).errors).toHaveLength(1);
  });

  it('changes the digest when set or changed; a file without it keeps its digest', () => {
    const without = loadText(SITE(), ENV).state!.digest;
    const v1 = loadText(`${SITE()}    password_version: "1"\n`, ENV).state!.digest;
    const v2 = loadText(`${SITE()}    password_version: "2"\n`, ENV).state!.digest;
    expect(new Set([without, v1, v2]).size).toBe(3);
    expect(loadText(SITE(), ENV).state!.digest).toBe(without);
  });
});

describe('unlisted_is_drift', () => {
  it('sets the policy; absent or false leaves it (and the digest) as before', () => {
    const on = loadText(SITE('unlisted_is_drift: true\n'), ENV).state!;
    const off = loadText(SITE('unlisted_is_drift: false\n'), ENV).state!;
    const absent = loadText(SITE(), ENV).state!;
    expect(on.policy.unlistedIsDrift).toBe(true);
    expect(off.policy.unlistedIsDrift).toBeUndefined();
    expect(off.digest).toBe(absent.digest);
    expect(on.digest).not.toBe(absent.digest);
  });

  it('may be given in one file only', () => {
    const result = loadConfigTexts(
      [
        { text: SITE('unlisted_is_drift: true\n'), file: 'a.yaml' },
        { text: 'version: 1\nunlisted_is_drift: true\nwebsites: []\n', file: 'b.yaml' },
      ],
      ENV,
    );
    expect(result.errors.map((problem) => problem.code)).toEqual(['duplicate']);
  });
});
