/**
 * A saved plan is stale when any compared field of a touched site moved: the
 * fingerprint must cover every setting (one row per field; a new field
 * without a row fails to compile) and the identity and password flag.
 */
import { createHash } from 'node:crypto';
import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/model/canonical-json.js';
import { type LiveWebsite, SETTING_NAMES, type SettingName, type WebsiteSettings } from '../../src/model/website.js';
import { fingerprintLive, planDigest } from '../../src/plan/fingerprint.js';
import { plan } from '../../src/plan/planner.js';
import { fixturePlan } from '../render/fixture.js';
import { worldArb } from './arbitraries.js';
import { desired, live, policy } from './builders.js';

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

  it('is the digest of the canonical JSON of what was seen, so any version of sitesync computes the same one', () => {
    const digest = (value: unknown) => `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
    for (const site of [base, live(9, 'b.com', { email: true }, { hasPassword: true })]) {
      const seen = { id: site.id, domain: site.domain, hasPassword: site.hasPassword, settings: site.settings };
      expect(fingerprintLive(site)).toBe(digest(seen));
    }
    expect(fingerprintLive({ ...base, hasPassword: undefined })).toBe(
      digest({ id: 7, domain: 'a.com', hasPassword: null, settings: base.settings }),
    );
  });

  it('ignores timestamps (a no-op touch by the service is not a move)', () => {
    expect(fingerprintLive({ ...base, updatedAt: '2030-01-01T00:00:00Z' })).toBe(fingerprintLive(base));
  });
});

describe('planDigest', () => {
  it('equal plans, equal digests; another plan, another digest', () => {
    const of = (email: boolean) => plan([desired('a.com', { email })], [live(1, 'a.com')], policy());
    expect(planDigest(of(true))).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(planDigest(of(true))).toBe(planDigest(of(true)));
    expect(planDigest(of(true))).not.toBe(planDigest(of(false)));
  });

  const canonicalDigest = (value: unknown) =>
    `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;

  it("is the digest of the plan's canonical JSON", () => {
    expect(planDigest(fixturePlan())).toBe(canonicalDigest(fixturePlan()));
  });

  test.prop([worldArb], { seed: 13, numRuns: 200 })("is the digest of any plan's canonical JSON", (world) => {
    const result = plan(world.desired, world.live, policy(world.policy));
    expect(planDigest(result)).toBe(canonicalDigest(result));
  });
});
