/**
 * The policies' core, pure: compiling rules (types, did-you-mean, results
 * that are not true or false, cost, patterns), and evaluating each kind of
 * rule over desired sites and a plan. Tables with literal expectations.
 */
import { describe, expect, it } from 'vitest';
import type { Change, Plan } from '../../src/model/plan.js';
import type { PolicyDeclaration } from '../../src/model/policies.js';
import { type DesiredWebsite, defaultSettings, type WebsiteSettings } from '../../src/model/website.js';
import { compilePolicies, evaluatePolicies, policiesDigest } from '../../src/plan/policies/index.js';
import { unsafePattern } from '../../src/plan/policies/regex-safety.js';

const declaration = (name: string, rule: string, more: Partial<PolicyDeclaration> = {}): PolicyDeclaration => ({
  name,
  rule,
  message: `message of ${name}`,
  severity: 'error',
  match: { include: [], exclude: [], targets: [] },
  ...more,
});

const settings = (over: Partial<WebsiteSettings> = {}): WebsiteSettings => ({ ...defaultSettings(), ...over });

const site = (domain: string, over: Partial<WebsiteSettings> = {}): DesiredWebsite => ({
  domain,
  settings: settings(over),
  ignoreChanges: [],
});

const emptyPlan = (changes: Change[] = []): Plan => ({
  changes,
  notes: [],
  safety: [],
  summary: { create: 0, update: 0, delete: 0, unchanged: 0, outOfScope: 0, kept: 0, unverifiable: 0, ignoredDrift: 0 },
});

const deleteOf = (domain: string): Change => ({
  action: 'delete',
  domain,
  id: 1,
  before: settings(),
  fingerprint: 'sha256:x',
  class: 'drift',
});
const createOf = (domain: string, over: Partial<WebsiteSettings> = {}): Change => ({
  action: 'create',
  domain,
  id: null,
  after: settings(over),
  fields: [{ field: 'privacy', after: settings(over).privacy }],
  class: 'pending',
});

describe('compilePolicies', () => {
  it.each([
    ['site.exlude_bots', 5, 'exlude_bots is not a field of Site; did you mean exclude_bots?'],
    ['plan.changes.all(c, c.after.privcy == "public")', 28, 'privcy is not a field of Settings; did you mean privacy?'],
    ['sitte.domain == "x"', 0, 'sitte is not a variable; did you mean site?'],
    ['site.domain.endswth(".example")', 12, 'endswth() is not a function; did you mean endsWith()?'],
    [
      'site.exclude_bots && plan.deletes.size() < 2',
      0,
      'site is not a variable; a rule is over one website (site) or over the plan (plan), not both',
    ],
    ['site.domain', 0, 'must be true or false (a CEL bool), but gives string'],
    ['site.privacy == 1', 0, 'no such overload: string == int'],
    ['site.exclude_bots &&', 20, 'Unexpected token: EOF'],
    [
      'plan.changes.all(c, plan.deletes.exists(d, d.domain == c.domain))',
      0,
      'cannot finish on a large plan: it ranges over the plan changes once for each of them (its cost grows with the square of their number); compare each with a fixed value instead',
    ],
    [
      'site.exclude_ips.all(a, site.exclude_ips.all(b, a == b))',
      0,
      'cannot finish on a large plan: it ranges over the entries of a list setting once for each of them (its cost grows with the square of their number); compare each with a fixed value instead',
    ],
    [
      'site.domain.matches("^(a+)+$")',
      20,
      'repeats a group that itself repeats or has alternatives (like (a+)+): it can take exponential time; write it without the outer repetition',
    ],
    [
      'site.domain.matches(site.privacy)',
      0,
      'matches() takes its pattern as a literal string, so it can be checked here',
    ],
  ])('refuses %s at offset %i: %s', (rule, offset, message) => {
    const { policies, problems } = compilePolicies([declaration('p', rule)]);
    expect(policies).toEqual([]);
    expect(problems.map((problem) => [problem.offset, problem.message])).toEqual([[offset, message]]);
  });

  it.each([
    ['site.exclude_bots', 'site'],
    ['site.privacy != "public" || site.domain.endsWith(".public.example")', 'site'],
    ['site.exclude_ips.all(ip, !ip.startsWith("10."))', 'site'],
    ['"utm_source" in site.exclude_params', 'site'],
    ['plan.deletes.size() <= 3', 'plan'],
    ['plan.changes.all(c, c.action != "delete" || c.domain.endsWith(".test"))', 'plan'],
    ['plan.changes.all(c, c.class != "drift" || target != "production")', 'plan'],
    ['plan.updates.all(c, !("privacy" in c.fields) || c.after.privacy != "public")', 'plan'],
    ['plan.changes.all(c, c.after.exclude_ips.all(ip, ip != "0.0.0.0/0"))', 'plan'],
    ['site.domain.matches("^[a-z0-9-]+\\\\.example\\\\.com$")', 'site'],
  ])('compiles %s as a %s rule', (rule, kind) => {
    const { policies, problems } = compilePolicies([declaration('p', rule)]);
    expect(problems).toEqual([]);
    expect(policies.map((policy) => policy.kind)).toEqual([kind]);
  });
});

describe('unsafePattern', () => {
  it.each([
    ['^[a-z]+\\.example$', undefined],
    ['^(www\\.)?shop\\.', undefined],
    ['(?:ab)+', undefined],
    [
      '(a|aa)*',
      'repeats a group that itself repeats or has alternatives (like (a+)+): it can take exponential time; write it without the outer repetition',
    ],
    [
      '(?:a?)+',
      'repeats a group that itself repeats or has alternatives (like (a+)+): it can take exponential time; write it without the outer repetition',
    ],
    ['(a)\\1', 'uses a back-reference, which CEL patterns (RE2) do not have'],
    ['(?!x)y', 'uses look-around, which CEL patterns (RE2) do not have'],
    ['(a', 'is not a valid pattern: Invalid regular expression: /(a/: Unterminated group'],
  ])('%s → %s', (pattern, expected) => {
    expect(unsafePattern(pattern)).toBe(expected);
  });
});

describe('evaluatePolicies', () => {
  const run = (declarations: PolicyDeclaration[], websites: DesiredWebsite[], plan: Plan, target?: string) => {
    const { policies, problems } = compilePolicies(declarations);
    expect(problems).toEqual([]);
    return evaluatePolicies(policies, 'sha256:d', { websites, plan, target });
  };

  it('a site rule names each matched website that breaks it; the match narrows which websites', () => {
    const report = run(
      [
        declaration('bots', 'site.exclude_bots', {
          match: { include: ['*.prod.example'], exclude: ['old.prod.example'], targets: [] },
        }),
        declaration('private', 'site.privacy != "public"', { severity: 'warning' }),
      ],
      [
        site('a.prod.example', { excludeBots: false }),
        site('b.prod.example'),
        site('old.prod.example', { excludeBots: false }),
        site('blog.example', { excludeBots: false, privacy: 'public' }),
      ],
      emptyPlan(),
    );
    expect(report).toEqual({
      digest: 'sha256:d',
      evaluated: 2,
      violations: [
        { policy: 'bots', kind: 'site', severity: 'error', domain: 'a.prod.example', message: 'message of bots' },
        { policy: 'private', kind: 'site', severity: 'warning', domain: 'blog.example', message: 'message of private' },
      ],
    });
  });

  it('a plan rule sees the matched changes with their class, fields, before and after', () => {
    const changes = [deleteOf('a.test'), deleteOf('b.example'), createOf('new.example', { privacy: 'public' })];
    const report = run(
      [
        declaration('deletes', 'plan.deletes.size() <= 1'),
        declaration('test-deletes', 'plan.deletes.size() <= 1', {
          match: { include: ['*.test'], exclude: [], targets: [] },
        }),
        declaration('only-test', 'plan.changes.all(c, c.action != "delete" || c.domain.endsWith(".test"))'),
        declaration('no-drift-delete', 'plan.deletes.all(c, c.class != "drift")', { severity: 'warning' }),
        declaration('public-create', 'plan.creates.all(c, !("privacy" in c.fields) || c.after.privacy != "public")'),
        declaration('before', 'plan.changes.all(c, c.before.privacy == "private")'),
      ],
      [],
      emptyPlan(changes),
    );
    expect(report.violations).toEqual([
      { policy: 'deletes', kind: 'plan', severity: 'error', message: 'message of deletes' },
      { policy: 'only-test', kind: 'plan', severity: 'error', message: 'message of only-test' },
      { policy: 'no-drift-delete', kind: 'plan', severity: 'warning', message: 'message of no-drift-delete' },
      { policy: 'public-create', kind: 'plan', severity: 'error', message: 'message of public-create' },
      {
        policy: 'before',
        kind: 'plan',
        severity: 'error',
        message: 'message of before',
        error: 'could not be evaluated: No such key: before',
      },
    ]);
  });

  it('applies a policy only to the targets its match names (globs), and gives rules the target name', () => {
    const declarations = [
      declaration('prod-only', 'site.exclude_bots', { match: { include: [], exclude: [], targets: ['prod-*'] } }),
      declaration('named', 'target == "staging"'),
    ];
    const websites = [site('a.example', { excludeBots: false })];
    expect(run(declarations, websites, emptyPlan(), 'prod-eu').violations.map((v) => v.policy)).toEqual([
      'prod-only',
      'named',
    ]);
    const staging = run(declarations, websites, emptyPlan(), 'staging');
    expect(staging).toMatchObject({ evaluated: 1, violations: [] });
  });

  it('refuses to run a rule over the cost limit at the plan’s size, as a violation of the rule', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => `p${i}`);
    const report = run(
      [
        declaration(
          'params',
          'site.exclude_params.all(p, site.exclude_params.size() < 5000 && p.size() < 99 && p != "x" && p != "y" && p != "z" && p != "w")',
        ),
      ],
      Array.from({ length: 1_000 }, (_, i) => site(`s${i}.example`, { excludeParams: many })),
      emptyPlan(),
    );
    expect(report.violations).toEqual([
      {
        policy: 'params',
        kind: 'site',
        severity: 'error',
        message: 'message of params',
        error: "not evaluated: at this plan's size (1000 websites) it would take more than 10,000,000 steps",
      },
    ]);
  });

  it('digests the policies as configured, whatever their order', () => {
    const a = declaration('a', 'site.exclude_bots');
    const b = declaration('b', 'plan.deletes.size() < 3');
    expect(policiesDigest([a, b])).toBe(policiesDigest([b, a]));
    expect(policiesDigest([a, b])).not.toBe(policiesDigest([a, { ...b, severity: 'warning' }]));
    expect(policiesDigest([a])).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
