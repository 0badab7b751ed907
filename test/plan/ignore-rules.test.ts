/** Expiring ignore_changes rules in the pure planner: today is an input (policy.today, YYYY-MM-DD UTC). */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/plan.js';
import type { DesiredWebsite, IgnoreRule } from '../../src/model/website.js';
import { explain } from '../../src/plan/explain.js';
import { plan } from '../../src/plan/planner.js';
import { noteText } from '../../src/render/plan-text.js';
import { desired, live, policy } from './builders.js';

const TODAY = '2026-07-01';

function withRules(site: DesiredWebsite, rules: IgnoreRule[]): DesiredWebsite {
  return { ...site, ignoreChanges: [...site.ignoreChanges, ...rules.map((rule) => rule.field)], ignoreRules: rules };
}

const updates = (result: Plan): string[] =>
  result.changes.map(
    (change) => `${change.domain}: ${change.action === 'delete' ? '' : change.fields.map((f) => f.field).join(' ')}`,
  );

interface Row {
  rule: string;
  until: string | undefined;
  today: string | undefined;
  expired: boolean;
}

const rows: Row[] = [
  {
    rule: 'until before today: expired, the field is compared again',
    until: '2026-06-30',
    today: TODAY,
    expired: true,
  },
  {
    rule: 'until is today: the rule still holds (the last day, inclusive)',
    until: TODAY,
    today: TODAY,
    expired: false,
  },
  { rule: 'until after today: the rule holds', until: '2027-01-01', today: TODAY, expired: false },
  { rule: 'no until: never expires', until: undefined, today: TODAY, expired: false },
  { rule: 'no today given (a library caller): nothing expires', until: '2020-01-01', today: undefined, expired: false },
];

describe('expiring ignore_changes rules', () => {
  it.each(rows)('$rule', ({ until, today, expired }) => {
    const rule: IgnoreRule = { field: 'email', reason: 'CRM migration' };
    if (until !== undefined) rule.until = until;
    const site = withRules(desired('a.example', { email: true }), [rule]);
    const result = plan([site], [live(1, 'a.example', { email: false })], policy(today === undefined ? {} : { today }));
    if (expired) {
      expect(updates(result)).toEqual(['a.example: email']);
      expect(result.ignoredOnly).toBeUndefined();
      expect(result.notes.filter((note) => note.kind === 'ignore_expired')).toEqual([
        { kind: 'ignore_expired', domains: ['a.example'], field: 'email', until, reason: 'CRM migration' },
      ]);
    } else {
      expect(updates(result)).toEqual([]);
      expect(result.ignoredOnly?.[0]?.fields).toEqual([{ field: 'email', before: false, after: true }]);
      expect(result.notes.map((note) => note.kind)).not.toContain('ignore_expired');
    }
  });

  it('one note per rule, naming every site it expired for; other fields stay ignored; filtered sites are left out', () => {
    const shared: IgnoreRule = { field: 'favorite', until: '2026-06-30', reason: 'pinned' };
    const sites = [
      withRules(desired('a.example', { favorite: true, email: true }, { ignoreChanges: ['email'] }), [shared]),
      withRules(desired('b.example', { favorite: true }), [shared]),
      withRules(desired('c.example', { favorite: true }), [shared]),
      withRules(desired('d.example', { privacy: 'public' }), [{ field: 'privacy', until: '2026-01-31' }]),
    ];
    const current = ['a', 'b', 'c', 'd'].map((name, i) => live(i + 1, `${name}.example`));
    const result = plan(sites, current, policy({ today: TODAY, skip: ['c.*'] }));
    expect(updates(result)).toEqual(['a.example: favorite', 'b.example: favorite', 'd.example: privacy']);
    const expired = result.notes.filter((note) => note.kind === 'ignore_expired');
    expect(expired.map(noteText)).toEqual([
      'ignore_changes for favorite expired on 2026-06-30 (UTC) (reason: pinned): favorite is compared again on 2 websites; remove the rule or move its until',
      'ignore_changes for privacy expired on 2026-01-31 (UTC): privacy is compared again on 1 website; remove the rule or move its until',
    ]);
    expect(expired.map((note) => note.domains)).toEqual([['a.example', 'b.example'], ['d.example']]);
    // A rule without a reason gives a note without one (no `reason: undefined` key in the plan's data).
    expect(expired[1]).toStrictEqual({
      kind: 'ignore_expired',
      domains: ['d.example'],
      field: 'privacy',
      until: '2026-01-31',
    });
    expect(result.ignoredOnly).toBeUndefined();
    expect(result.changes[0]).toMatchObject({ ignored: [{ field: 'email', before: false, after: true }] });
  });

  it('rules that differ only in their reason are two notes, in a fixed order, each naming its sites in domain order', () => {
    const rule = (reason: string): IgnoreRule => ({ field: 'favorite', until: '2026-06-30', reason });
    const sites = [
      withRules(desired('z.example', { favorite: true }), [rule('pinned')]),
      withRules(desired('y.example', { favorite: true }), [rule('pinned')]),
      withRules(desired('a.example', { favorite: true }), [rule('campaign')]),
    ];
    const current = sites.map((site, i) => live(i + 1, site.domain));
    const expired = plan(sites, current, policy({ today: TODAY })).notes.filter(
      (note) => note.kind === 'ignore_expired',
    );
    expect(expired).toEqual([
      { kind: 'ignore_expired', domains: ['a.example'], field: 'favorite', until: '2026-06-30', reason: 'campaign' },
      {
        kind: 'ignore_expired',
        domains: ['y.example', 'z.example'],
        field: 'favorite',
        until: '2026-06-30',
        reason: 'pinned',
      },
    ]);
  });

  it('--explain compares the field of an expired rule too', () => {
    const site = withRules(desired('a.example', { email: true }), [{ field: 'email', until: '2026-06-30' }]);
    const current = [live(1, 'a.example')];
    const outcome = (today: string) =>
      explain([site], current, policy({ today }))[0]?.fields.find((field) => field.field === 'email')?.outcome;
    expect(outcome('2026-06-30')).toBe('ignored');
    expect(outcome(TODAY)).toBe('change');
  });
});
