/**
 * A saved plan is stale when any compared field of a touched site moved: the
 * fingerprint must cover every setting (one row per field; a new field
 * without a row fails to compile) and the identity and password flag.
 */
import { describe, expect, it } from 'vitest';
import { type LiveWebsite, SETTING_NAMES, type SettingName, type WebsiteSettings } from '../../src/model/website.js';
import { fingerprintLive } from '../../src/plan/fingerprint.js';
import { live } from './builders.js';

const MOVED: { readonly [K in SettingName]: WebsiteSettings[K] } = {
  privacy: 'public',
  email: true,
  excludeBots: false,
  excludeParams: ['utm_source'],
  excludeIps: ['10.0.0.1'],
  favorite: true,
};

const base = live(7, 'a.com');

describe('fingerprintLive', () => {
  it('has a moved value for every setting', () => {
    expect(Object.keys(MOVED).sort()).toEqual([...SETTING_NAMES].sort());
  });

  it.each(SETTING_NAMES)('changes when %s moves', (name) => {
    expect(base.settings[name]).not.toEqual(MOVED[name]);
    const moved: LiveWebsite = { ...base, settings: { ...base.settings, [name]: MOVED[name] } };
    expect(fingerprintLive(moved)).not.toBe(fingerprintLive(base));
  });

  it.each([
    ['id', { id: 8 }],
    ['domain', { domain: 'b.com' }],
    ['password flag', { hasPassword: true }],
  ])('changes when the %s moves', (_name, change) => {
    expect(fingerprintLive({ ...base, ...change })).not.toBe(fingerprintLive(base));
  });

  it('ignores timestamps (a no-op touch by the service is not a move)', () => {
    expect(fingerprintLive({ ...base, updatedAt: '2030-01-01T00:00:00Z' })).toBe(fingerprintLive(base));
  });
});
