/** fast-check arbitraries for planner and renderer properties: small worlds of desired and live sites. */
import { fc } from '@fast-check/vitest';
import type { PlanPolicy } from '../../src/model/plan.js';
import { PRIVACY_CODE, PRIVACY_VALUES, type WebsiteSettings } from '../../src/model/website.js';
import { desired, live } from './builders.js';

export const DOMAINS = ['a.com', 'b.com', 'c.org', 'shop.a.com', 'x.net', 'y.net'];
const ENTRIES = ['utm', 'ref', '10.0.0.1', '10.0.0.2'];

/** Passwords long enough to be registered with the redactor, and unlike anything else in a plan. */
export const passwordArb = fc.string({ minLength: 6, maxLength: 16 }).map((text) => `pw:${text}`);

const settingsArb = fc.record({
  privacy: fc.constantFrom(...PRIVACY_VALUES),
  email: fc.boolean(),
  excludeBots: fc.boolean(),
  excludeParams: fc.uniqueArray(fc.constantFrom(...ENTRIES)).map((list) => [...list].sort()),
  excludeIps: fc.uniqueArray(fc.constantFrom(...ENTRIES)).map((list) => [...list].sort()),
  favorite: fc.boolean(),
});

/** Live values the way a server may send them: codes, strings, CRLF text, shuffled lists. */
const wireLike = (settings: WebsiteSettings, style: number): Record<string, unknown> =>
  style === 0
    ? { ...settings }
    : {
        privacy: String(PRIVACY_CODE[settings.privacy]),
        email: settings.email ? 1 : style === 1 ? null : '0',
        excludeBots: settings.excludeBots ? '1' : 0,
        excludeParams: [...settings.excludeParams].reverse().join('\r\n'),
        excludeIps: [...settings.excludeIps, ...settings.excludeIps].join('\n'),
        favorite: settings.favorite,
      };

const desiredArb = fc
  .uniqueArray(
    fc.record({
      domain: fc.constantFrom(...DOMAINS),
      settings: settingsArb,
      password: fc.option(passwordArb, { nil: undefined }),
      ignore: fc.subarray(['email', 'favorite'] as const, { maxLength: 1 }),
    }),
    { selector: (site) => site.domain, maxLength: 5 },
  )
  .map((sites) =>
    sites.map((site) =>
      desired(site.domain, site.settings, {
        ...(site.password === undefined ? {} : { password: site.password }),
        ignoreChanges: [...site.ignore],
      }),
    ),
  );

const liveArb = (writeOnlyParams: boolean) =>
  fc
    .uniqueArray(
      fc.record({
        domain: fc.constantFrom(...DOMAINS),
        settings: settingsArb,
        style: fc.nat(2),
        hasPassword: fc.boolean(),
      }),
      { selector: (site) => site.domain, maxLength: 5 },
    )
    .map((sites) =>
      sites.map((site, i) =>
        live(i + 10, site.domain, wireLike(site.settings, site.style), {
          hasPassword: site.hasPassword,
          writeOnly: writeOnlyParams ? ['excludeParams'] : [],
        }),
      ),
    );

const policyArb = fc.record({
  prune: fc.boolean(),
  protect: fc.subarray(['x.*', 'b.com']),
  only: fc.subarray(['*.com', 'a.*']),
  skip: fc.subarray(['y.net']),
  manage: fc.constantFrom<PlanPolicy['manage']>(
    { include: ['*'], exclude: [] },
    { include: ['*.com', '*.net'], exclude: ['c.*'] },
  ),
});

export const worldArb = fc
  .boolean()
  .chain((writeOnly) => fc.record({ desired: desiredArb, live: liveArb(writeOnly), policy: policyArb }));
