import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { Baseline, PlanPolicy, SafetyViolation } from '../../src/model/plan.js';
import { type DesiredWebsite, type LiveWebsite, SETTING_NAMES } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { noteText, violationText } from '../../src/render/plan-text.js';
import { desired, live, policy } from './builders.js';

const sites = (count: number, prefix = 's'): LiveWebsite[] =>
  Array.from({ length: count }, (_, i) => live(i + 1, `${prefix}${String(i).padStart(2, '0')}.com`));
const listed = (liveSites: LiveWebsite[]): DesiredWebsite[] => liveSites.map((site) => desired(site.domain));

interface Row {
  rule: string;
  desired: DesiredWebsite[];
  live: LiveWebsite[];
  policy?: Partial<PlanPolicy>;
  /** `message`: the violation as render/plan-text.ts words it. */
  violations: Partial<SafetyViolation & { message: string }>[];
}

const twelve = sites(12);
const rows: Row[] = [
  {
    rule: 'a small, ordinary plan is safe',
    desired: listed(twelve.slice(0, 11)),
    live: twelve,
    policy: { prune: true },
    violations: [],
  },
  {
    rule: 'one delete over limits.max_deletes is refused',
    desired: listed(twelve.slice(0, 8)),
    live: twelve,
    policy: { prune: true, limits: { maxDeletes: 3, maxChangePercent: 100 } },
    violations: [
      {
        rule: 'max_deletes',
        message: '4 deletes exceed limits.max_deletes (3): s08.com, s09.com, s10.com, s11.com',
        domains: ['s08.com', 's09.com', 's10.com', 's11.com'],
        limit: 3,
        actual: 4,
      },
    ],
  },
  {
    rule: 'deletes at exactly limits.max_deletes are allowed',
    desired: listed(twelve.slice(0, 9)),
    live: twelve,
    policy: { prune: true, limits: { maxDeletes: 3, maxChangePercent: 100 } },
    violations: [],
  },
  {
    rule: 'one delete over a limit of none: singular',
    desired: listed(twelve.slice(0, 11)),
    live: twelve,
    policy: { prune: true, limits: { maxDeletes: 0, maxChangePercent: 100 } },
    violations: [
      {
        rule: 'max_deletes',
        message: '1 delete exceeds limits.max_deletes (0): s11.com',
        domains: ['s11.com'],
        limit: 0,
        actual: 1,
      },
    ],
  },
  {
    rule: 'updates and deletes over limits.max_change_percent of at least 10 in-scope sites',
    desired: twelve.map((site) => desired(site.domain, { email: site.id <= 4 })),
    live: twelve,
    violations: [
      {
        rule: 'max_change_percent',
        message:
          '4 of the 12 in-scope websites (33.3%) would be updated or deleted: over limits.max_change_percent (30%)',
        limit: 30,
        actual: 33.3,
      },
    ],
  },
  {
    rule: 'the percentage rule applies from exactly 10 in-scope sites',
    desired: sites(10).map((site) => desired(site.domain, { email: site.id <= 4 })),
    live: sites(10),
    violations: [
      {
        rule: 'max_change_percent',
        message:
          '4 of the 10 in-scope websites (40%) would be updated or deleted: over limits.max_change_percent (30%)',
        limit: 30,
        actual: 40,
        total: 10,
      },
    ],
  },
  {
    rule: 'changes at exactly limits.max_change_percent are allowed; creates do not count',
    desired: [...sites(10).map((site) => desired(site.domain, { email: site.id <= 3 })), desired('new.com')],
    live: sites(10),
    violations: [],
  },
  {
    // The total is every in-scope live site, listed in the configuration or about to be pruned.
    rule: 'the percentage is of every in-scope live site, the ones pruned included: 5 deletes of 20 is 25%',
    desired: listed(sites(20).slice(0, 15)),
    live: sites(20),
    policy: { prune: true, limits: { maxDeletes: 10, maxChangePercent: 25 } },
    violations: [],
  },
  {
    rule: 'the same deletes over a lower percentage name the in-scope total',
    desired: listed(sites(20).slice(0, 15)),
    live: sites(20),
    policy: { prune: true, limits: { maxDeletes: 10, maxChangePercent: 24 } },
    violations: [{ rule: 'max_change_percent', limit: 24, actual: 25, total: 20 }],
  },
  {
    rule: 'no percentage rule below 10 in-scope sites',
    desired: sites(9).map((site) => desired(site.domain, { email: true })),
    live: sites(9),
    violations: [],
  },
  {
    rule: 'an empty configuration with prune on',
    desired: [],
    live: sites(2),
    policy: { prune: true },
    violations: [
      {
        rule: 'empty_config_prune',
        message: 'the configuration lists no websites and prune is on: 2 websites would be deleted',
        domains: ['s00.com', 's01.com'],
      },
    ],
  },
  {
    rule: 'a delete and a create with matching settings is a suspected rename',
    desired: [desired('new-name.com', { privacy: 'public', excludeIps: ['10.0.0.1'] }), desired('other.com')],
    live: [live(5, 'old-name.com', { privacy: 0, excludeIps: '10.0.0.1' }), live(6, 'other.com')],
    policy: { prune: true },
    violations: [
      {
        rule: 'suspected_rename',
        message:
          'old-name.com → new-name.com looks like a rename: the service cannot rename a website, so old-name.com and its whole analytics history would be deleted',
        domains: ['old-name.com'],
        renamedTo: 'new-name.com',
      },
    ],
  },
  {
    rule: 'a create pairs with one delete only, whatever fields the old sites report',
    desired: [desired('new-name.com', { privacy: 'public' }), desired('other.com')],
    live: [
      live(5, 'a-name.com', { privacy: 0 }),
      live(6, 'b-name.com', { privacy: 0 }, { writeOnly: ['excludeParams'] }),
      live(7, 'other.com'),
    ],
    policy: { prune: true, limits: { maxDeletes: 5, maxChangePercent: 100 } },
    violations: [{ rule: 'suspected_rename', domains: ['a-name.com'], renamedTo: 'new-name.com' }],
  },
  {
    rule: 'an old site is compared on the settings it reports: a write-only field does not hide a rename',
    desired: [desired('new-name.com', { privacy: 'public', excludeParams: ['ref'] }), desired('other.com')],
    live: [live(5, 'old-name.com', { privacy: 0 }, { writeOnly: ['excludeParams'] }), live(6, 'other.com')],
    policy: { prune: true },
    violations: [{ rule: 'suspected_rename', domains: ['old-name.com'], renamedTo: 'new-name.com' }],
  },
  {
    rule: 'an old site that reports no settings is no rename: there is nothing to match',
    desired: [desired('shop.example.org'), desired('other.com')],
    live: [live(5, 'shop.example.com', {}, { writeOnly: [...SETTING_NAMES] }), live(6, 'other.com')],
    policy: { prune: true },
    violations: [],
  },
  ...(
    [
      ['a domain grown by 3 characters', 'shop.com', 'shop-eu.com', true],
      [
        'a long domain edited in a quarter of its length (5 of 20)',
        'northwind-store.com',
        'north-wind-stores.de',
        true,
      ],
      ['domains of the same length with nothing alike', 'alpha.com', 'omega.net', false],
    ] as const
  ).map(
    ([what, from, to, renamed]): Row => ({
      rule: `${what}: ${renamed ? 'a' : 'no'} suspected rename`,
      desired: [desired(to), desired('other.com')],
      live: [live(5, from), live(6, 'other.com')],
      policy: { prune: true },
      violations: renamed ? [{ rule: 'suspected_rename', domains: [from], renamedTo: to }] : [],
    }),
  ),
  {
    rule: 'sites that merely share the defaults are no rename: the domains must read as an edit of each other',
    desired: [desired('blog.staging.acme.example'), desired('shop.acme.org'), desired('other.com')],
    live: [live(5, 'api.acme.example'), live(6, 'shop.acme.example'), live(7, 'other.com')],
    policy: { prune: true },
    violations: [{ rule: 'suspected_rename', domains: ['shop.acme.example'], renamedTo: 'shop.acme.org' }],
  },
  {
    rule: 'a delete and a create with different settings is not a rename',
    desired: [desired('new-name.com', { privacy: 'public' }), desired('other.com')],
    live: [live(5, 'old-name.com', { privacy: 1 }), live(6, 'other.com')],
    policy: { prune: true },
    violations: [],
  },
];

describe('checkSafety: one row per rule', () => {
  it.each(rows)('$rule', (row) => {
    const result = plan(row.desired, row.live, policy(row.policy));
    expect(result.safety).toHaveLength(row.violations.length);
    row.violations.forEach((violation, i) => {
      const found = result.safety[i]!;
      expect({ ...found, message: violationText(found) }).toMatchObject(violation);
    });
  });
});

describe('a domain edit with prune off', () => {
  it('notes the create as a likely rename of the kept site, worded like the other notes', () => {
    const result = plan(
      [desired('new-name.com', { privacy: 'public', excludeIps: ['10.0.0.1'] }), desired('other.com')],
      [live(5, 'old-name.com', { privacy: 0, excludeIps: '10.0.0.1' }), live(6, 'other.com')],
      policy({ prune: false }),
    );
    expect(result.safety).toEqual([]);
    const note = result.notes.find((candidate) => candidate.kind === 'possible_rename');
    expect(note).toEqual({ kind: 'possible_rename', domains: ['new-name.com'], renameOf: 'old-name.com' });
    expect(noteText(note!)).toBe(
      'new-name.com looks like a rename of old-name.com: the service cannot rename a website, so new-name.com will be a second site and old-name.com is kept (prune is off); to move, let the old site go by pruning it, or keep the old domain',
    );
  });

  it('says nothing when the settings differ', () => {
    const result = plan(
      [desired('new-name.com', { privacy: 'public' }), desired('other.com')],
      [live(5, 'old-name.com', { privacy: 1 }), live(6, 'other.com')],
      policy({ prune: false }),
    );
    expect(result.notes.map((note) => note.kind)).not.toContain('possible_rename');
  });

  it('names the first kept site in domain order, however the service lists the account', () => {
    const renameOf = (current: LiveWebsite[]) =>
      plan([desired('shop.com')], current, policy({ prune: false })).notes.find(
        (note) => note.kind === 'possible_rename',
      );
    const expected = { kind: 'possible_rename', domains: ['shop.com'], renameOf: 'shop.net' };
    expect(renameOf([live(5, 'shop.org'), live(6, 'shop.net')])).toEqual(expected);
    expect(renameOf([live(6, 'shop.net'), live(5, 'shop.org')])).toEqual(expected);
  });

  it('never pairs an update with a kept site: only a create can be a domain edit', () => {
    const result = plan([desired('shop.com')], [live(1, 'shop.com', { email: true }), live(2, 'shop.net')], policy());
    expect(result.changes.map((change) => change.action)).toEqual(['update']);
    expect(result.notes.map((note) => note.kind)).toEqual(['kept_not_in_config']);
  });

  describe('with a baseline, only a domain edit of the file is a rename', () => {
    // Both unlisted live sites have the default settings, as the new one: without a
    // baseline the first in domain order (made-in-the-ui.com) would be named.
    const now = [desired('renamed-to.com')];
    const current = [live(5, 'renamed-from.com'), live(6, 'made-in-the-ui.com')];
    const baselineOf = (websites: DesiredWebsite[]): Baseline => ({
      ref: { ref: 'sitesync-applied', commit: 'c'.repeat(40), source: 'option' },
      websites,
      policy: { ...DEFAULT_POLICY, prune: false },
    });

    it('pairs the site the file listed at the baseline with a domain the baseline did not list', () => {
      const result = plan(now, current, policy({ prune: false }), baselineOf([desired('renamed-from.com')]));
      const renames = result.notes.filter((note) => note.kind === 'possible_rename');
      expect(renames).toEqual([{ kind: 'possible_rename', domains: ['renamed-to.com'], renameOf: 'renamed-from.com' }]);
    });

    it('says nothing when the create is of a domain the file listed at the baseline (deleted by hand since)', () => {
      const listedThen = baselineOf([desired('shop.com'), desired('shop.net')]);
      const result = plan([desired('shop.com')], [live(5, 'shop.net')], policy({ prune: false }), listedThen);
      expect(result.changes.map((change) => `${change.action} ${change.domain}`)).toEqual(['create shop.com']);
      expect(result.notes.map((note) => note.kind)).not.toContain('possible_rename');
    });

    it('says nothing when no listed site left the file since the baseline', () => {
      const result = plan(now, current, policy({ prune: false }), baselineOf([]));
      expect(result.notes.map((note) => note.kind)).not.toContain('possible_rename');
    });
  });
});
