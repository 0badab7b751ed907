/** Coverage: how much of the account the configuration manages, counted from the live sites (pure planner). */
import { describe, expect, it } from 'vitest';
import type { Coverage, PlanPolicy } from '../../src/model/plan.js';
import type { DesiredWebsite, LiveWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { coverageText } from '../../src/render/plan-text.js';
import { desired, live, policy } from './builders.js';

interface Row {
  rule: string;
  desired: DesiredWebsite[];
  live: LiveWebsite[];
  policy?: Partial<PlanPolicy>;
  coverage: Omit<Coverage, 'unmanaged'>;
  text: string;
}

const scoped = { manage: { include: ['*.shop.example'], exclude: [] } };

const rows: Row[] = [
  {
    rule: 'every live site listed: fully covered',
    desired: [desired('a.example'), desired('b.example')],
    live: [live(1, 'a.example'), live(2, 'b.example')],
    coverage: { live: 2, managed: 2, outOfScope: 0, kept: 0, duplicates: 0, percent: 100 },
    text: 'Coverage: 2 of 2 live websites managed (100%).',
  },
  {
    rule: 'unlisted outside manage is unmanaged (out of scope)',
    desired: [desired('a.shop.example')],
    live: [live(1, 'a.shop.example'), live(2, 'blog.example')],
    policy: scoped,
    coverage: { live: 2, managed: 1, outOfScope: 1, kept: 0, duplicates: 0, percent: 50 },
    text: 'Coverage: 1 of 2 live websites managed (50%); 1 unmanaged: 1 outside manage.',
  },
  {
    rule: 'unlisted inside manage with prune off is unmanaged (kept)',
    desired: [desired('a.shop.example')],
    live: [live(1, 'a.shop.example'), live(2, 'b.shop.example'), live(3, 'c.shop.example')],
    policy: scoped,
    coverage: { live: 3, managed: 1, outOfScope: 0, kept: 2, duplicates: 0, percent: 33.3 },
    text: 'Coverage: 1 of 3 live websites managed (33.3%); 2 unmanaged: 2 not listed, kept.',
  },
  {
    rule: 'unlisted inside manage with prune on is managed (deleted); protected is kept',
    desired: [desired('a.shop.example')],
    live: [live(1, 'a.shop.example'), live(2, 'old.shop.example'), live(3, 'vip.shop.example')],
    policy: { ...scoped, prune: true, protect: ['vip.*'] },
    coverage: { live: 3, managed: 2, outOfScope: 0, kept: 1, duplicates: 0, percent: 66.6 },
    text: 'Coverage: 2 of 3 live websites managed (66.6%); 1 unmanaged: 1 not listed, kept.',
  },
  {
    rule: 'a listed site outside manage is managed; a create counts nothing (not live)',
    desired: [desired('listed.example'), desired('new.shop.example')],
    live: [live(1, 'listed.example')],
    policy: scoped,
    coverage: { live: 1, managed: 1, outOfScope: 0, kept: 0, duplicates: 0, percent: 100 },
    text: 'Coverage: 1 of 1 live website managed (100%).',
  },
  {
    rule: 'the newer record of a domain held twice is unmanaged (never changed)',
    desired: [desired('a.example')],
    live: [live(1, 'a.example'), live(2, 'A.example.')],
    coverage: { live: 2, managed: 1, outOfScope: 0, kept: 0, duplicates: 1, percent: 50 },
    text: 'Coverage: 1 of 2 live websites managed (50%); 1 unmanaged: 1 duplicate.',
  },
  {
    rule: '--only and --skip do not change coverage (a property of account and configuration)',
    desired: [desired('a.shop.example'), desired('b.shop.example')],
    live: [live(1, 'a.shop.example'), live(2, 'b.shop.example'), live(3, 'c.shop.example'), live(4, 'x.example')],
    policy: { ...scoped, prune: true, only: ['a.*'], skip: ['c.*'] },
    coverage: { live: 4, managed: 3, outOfScope: 1, kept: 0, duplicates: 0, percent: 75 },
    text: 'Coverage: 3 of 4 live websites managed (75%); 1 unmanaged: 1 outside manage.',
  },
  {
    rule: 'an empty account: no share',
    desired: [desired('a.example')],
    live: [],
    coverage: { live: 0, managed: 0, outOfScope: 0, kept: 0, duplicates: 0, percent: null },
    text: 'Coverage: the account has no websites.',
  },
];

describe('coverage', () => {
  it.each(rows)('$rule', (row) => {
    const result = plan(row.desired, row.live, policy(row.policy));
    const { coverage } = row;
    const unmanaged = coverage.outOfScope + coverage.kept + coverage.duplicates;
    expect(result.coverage).toEqual({ ...coverage, unmanaged });
    expect(coverageText(result.coverage as Coverage)).toBe(row.text);
  });

  it('rounds down, so one unmanaged site of 1,000 never shows as 100%', () => {
    const sites = Array.from({ length: 1000 }, (_, i) => `s${i}.example`);
    const result = plan(
      sites.slice(1).map((domain) => desired(domain)),
      sites.map((domain, i) => live(i + 1, domain)),
      policy(),
    );
    expect(result.coverage).toMatchObject({ live: 1000, managed: 999, kept: 1, percent: 99.9 });
  });
});
