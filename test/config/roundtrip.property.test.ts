/**
 * Property: any valid desired state, serialised to YAML and loaded again,
 * gives the same desired state (settings, passwords, ignore_changes, policy,
 * API URL), whatever the defaults factoring and YAML quoting had to do.
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { serializeConfig } from '../../src/config/serialize.js';
import type { ConfigPolicy } from '../../src/model/desired-state.js';
import { canonicalDomain, isValidServiceDomain } from '../../src/model/domain.js';
import { CONFIG_FIELD_NAMES, FIELDS, type FieldName, PRIVACY_VALUES } from '../../src/model/website.js';
import { loadText } from './helpers.js';

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,6}$/))
  .map(([labels, tld]) => [...labels, tld].join('.'))
  .filter((name) => isValidServiceDomain(name) && canonicalDomain(name) === name);

// Any printable text without surrounding space: YAML must quote "true", "1", "#x", "a: b", "- x"...
const text = fc.string({ minLength: 1, maxLength: 12 }).filter((value) => value.trim() === value && value !== '');
const ip = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([address, bits]) => `${address}/${bits}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([address, bits]) => `${address}/${bits}`),
);
const glob = fc.stringMatching(/^[a-z0-9*?.-]{1,12}$/).filter((value) => !value.startsWith('www.'));
const FIELD_NAMES = Object.keys(CONFIG_FIELD_NAMES) as FieldName[];

const website = fc.record({
  domain,
  privacy: fc.constantFrom(...PRIVACY_VALUES),
  email: fc.boolean(),
  excludeBots: fc.boolean(),
  excludeParams: fc.array(text, { maxLength: 4 }).map((list) => FIELDS.excludeParams.canonical(list)!),
  excludeIps: fc.array(ip, { maxLength: 3 }).map((list) => FIELDS.excludeIps.canonical(list)!),
  favorite: fc.boolean(),
  password: fc.string({ minLength: 1, maxLength: 128 }),
  ignoreChanges: fc.subarray(FIELD_NAMES),
});

const policy: fc.Arbitrary<ConfigPolicy> = fc.record({
  prune: fc.boolean(),
  manage: fc.record({ include: fc.array(glob, { maxLength: 2 }), exclude: fc.array(glob, { maxLength: 2 }) }),
  protect: fc.array(glob, { maxLength: 3 }),
  limits: fc.record({ maxDeletes: fc.nat(50), maxChangePercent: fc.integer({ min: 0, max: 100 }) }),
});

const stateArbitrary = fc.record({
  websites: fc.uniqueArray(website, { selector: (site) => site.domain, maxLength: 8 }),
  policy,
  apiUrl: fc.option(fc.constantFrom('https://stats.example.com', 'http://127.0.0.1:8080/base'), { nil: undefined }),
});

test.prop([stateArbitrary], { seed: 13, numRuns: 150 })(
  'serialise then load gives the same desired state',
  (generated) => {
    const env: Record<string, string> = {};
    const websites = generated.websites.map((site, i) => {
      const { domain: name, password, ignoreChanges, ...settings } = site;
      const withPassword = settings.privacy === 'password';
      if (withPassword) env[`SITESYNC_PW_${i}`] = password;
      return {
        domain: name,
        settings,
        ignoreChanges,
        ...(withPassword ? { passwordVariable: `SITESYNC_PW_${i}` } : {}),
      };
    });
    const yaml = serializeConfig({
      websites,
      policy: generated.policy,
      schema: '../schemas/websites.schema.json',
      ...(generated.apiUrl ? { apiUrl: generated.apiUrl } : {}),
    });
    const loaded = loadText(yaml, env);
    expect(loaded.lines).toEqual([]);
    const state = loaded.state!;

    const sorted = [...websites].sort((a, b) => (a.domain < b.domain ? -1 : 1));
    expect(
      state.websites.map((site) => ({
        domain: site.domain,
        settings: site.settings,
        ignoreChanges: site.ignoreChanges,
      })),
    ).toEqual(sorted.map(({ domain: name, settings, ignoreChanges }) => ({ domain: name, settings, ignoreChanges })));
    expect(state.websites.map((site) => site.password?.reveal())).toEqual(
      sorted.map((site) => (site.passwordVariable ? env[site.passwordVariable] : undefined)),
    );
    expect(state.policy).toEqual(generated.policy);
    expect(state.apiUrl).toBe(generated.apiUrl);
  },
);
