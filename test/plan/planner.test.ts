import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { Change, FieldChange, Plan, PlanPolicy } from '../../src/model/plan.js';
import type { DesiredWebsite, FieldName, LiveWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { parseWriteOnlySync, policyFromConfig } from '../../src/plan/policy.js';
import { noteText, PRUNE_UNSCOPED_TEXT as PRUNE_UNSCOPED } from '../../src/render/plan-text.js';
import { desired, live, policy } from './builders.js';

const show = (value: unknown): string => (Array.isArray(value) ? `[${value.join(',')}]` : String(value));

function fieldText(field: FieldChange): string {
  if (field.writeOnly) return `${field.field}: (write-only)${field.after === undefined ? '' : ` ${show(field.after)}`}`;
  return field.before === undefined
    ? `${field.field}=${show(field.after)}`
    : `${field.field}: ${show(field.before)}→${show(field.after)}`;
}

/** One line per change: the table's expected values are literal strings. */
function lines(result: Plan): string[] {
  return result.changes.map((change: Change) => {
    if (change.action === 'delete') return `- ${change.domain} (${change.id})`;
    const fields = change.fields.map(fieldText).join(', ');
    return change.action === 'create' ? `+ ${change.domain} ${fields}` : `~ ${change.domain} (${change.id}) ${fields}`;
  });
}

const notes = (result: Plan): string[] =>
  result.notes.map((note) => `${note.kind}: ${noteText(note)} [${note.domains.join(' ')}]`);

interface Row {
  rule: string;
  desired: DesiredWebsite[];
  live: LiveWebsite[];
  policy?: Partial<PlanPolicy>;
  changes: string[];
  notes?: string[];
}

/** a.com with a password and a write-only list, b.com with a write-only list: the --sync-write-only rows' account. */
const twoWriteOnlySites = {
  desired: [
    desired('a.com', { privacy: 'password', excludeParams: ['utm'] }, { password: 'hunter22' }),
    desired('b.com', { excludeParams: ['ref'] }),
  ],
  live: [
    live(1, 'a.com', { privacy: 2 }, { writeOnly: ['excludeParams'], hasPassword: true }),
    live(2, 'b.com', {}, { writeOnly: ['excludeParams'] }),
  ],
};

const rows: Row[] = [
  { rule: 'identical sites: no change', desired: [desired('a.com')], live: [live(1, 'a.com')], changes: [] },
  {
    rule: '"1" and 1 are the same value',
    desired: [desired('a.com', { email: true, privacy: 'public' })],
    live: [live(1, 'a.com', { email: '1', privacy: '0' })],
    changes: [],
  },
  {
    rule: 'null and 0 are the same value',
    desired: [desired('a.com', { email: false, privacy: 'public' })],
    live: [live(1, 'a.com', { email: null, privacy: null })],
    changes: [],
  },
  {
    rule: 'CRLF and LF lists are the same value',
    desired: [desired('a.com', { excludeIps: ['10.0.0.1', '10.0.0.2'] })],
    live: [live(1, 'a.com', { excludeIps: '10.0.0.2\r\n10.0.0.1\r\n' })],
    changes: [],
  },
  {
    rule: 'list order, duplicates and case of IPs are not changes',
    desired: [desired('a.com', { excludeParams: ['utm', 'ref'], excludeIps: ['fe80::a'] })],
    live: [live(1, 'a.com', { excludeParams: ['ref', 'utm', 'ref'], excludeIps: ['FE80::A'] })],
    changes: [],
  },
  {
    rule: 'favourite compares as a boolean, never the timestamp',
    desired: [desired('a.com', { favorite: true })],
    live: [{ ...live(1, 'a.com', { favorite: true }), raw: { favorited_at: '2024-05-01 10:20:30' } }],
    changes: [],
  },
  {
    rule: 'a changed setting is an update of that field only',
    desired: [desired('a.com', { privacy: 'public', excludeIps: ['10.0.0.2'] })],
    live: [live(7, 'a.com', { privacy: 1, excludeIps: '10.0.0.1' })],
    changes: ['~ a.com (7) privacy: private→public, excludeIps: [10.0.0.1]→[10.0.0.2]'],
  },
  {
    rule: 'identity is the canonical domain',
    desired: [desired('example.com')],
    live: [live(1, 'Example.COM.')],
    changes: [],
  },
  {
    rule: 'a missing site is created with every field',
    desired: [desired('new.com', { privacy: 'public' })],
    live: [],
    changes: [
      '+ new.com privacy=public, email=false, excludeBots=true, excludeParams=[], excludeIps=[], favorite=false',
    ],
  },
  {
    rule: 'a create marks settings the server never returns as write-only, and sends the password',
    desired: [desired('new.com', { privacy: 'password', excludeParams: ['utm'] }, { password: 'hunter22' })],
    live: [live(1, 'old.com', {}, { writeOnly: ['excludeParams'] })],
    changes: [
      '+ new.com privacy=password, email=false, excludeBots=true, excludeParams: (write-only) [utm], excludeIps=[], favorite=false, password: (write-only)',
    ],
    notes: [
      'kept_not_in_config: 1 website not in configuration, kept (prune is off) [old.com]',
      'write_only_unverified: 2 write-only values cannot be verified: the service does not return them [new.com]',
    ],
  },
  {
    rule: 'an unlisted site in scope is kept without prune',
    desired: [],
    live: [live(3, 'old.com')],
    changes: [],
    notes: ['kept_not_in_config: 1 website not in configuration, kept (prune is off) [old.com]'],
  },
  {
    rule: 'an unlisted site in scope is deleted with prune',
    desired: [desired('a.com')],
    live: [live(1, 'a.com'), live(3, 'old.com')],
    policy: { prune: true },
    changes: ['- old.com (3)'],
  },
  {
    rule: 'prune never deletes a protected site',
    desired: [desired('a.com')],
    live: [live(1, 'a.com'), live(3, 'keep.com'), live(4, 'old.com')],
    policy: { prune: true, protect: ['keep.*'] },
    changes: ['- old.com (4)'],
    notes: [
      `prune_unscoped: ${PRUNE_UNSCOPED} [old.com]`,
      'protected: 1 website not in configuration, kept: protected [keep.com]',
    ],
  },
  {
    rule: 'prune with no manage scope is noted, even with nothing to delete',
    desired: [desired('a.com')],
    live: [live(1, 'a.com')],
    policy: { prune: true },
    changes: [],
    notes: [`prune_unscoped: ${PRUNE_UNSCOPED} []`],
  },
  {
    rule: 'prune inside a manage scope is not noted',
    desired: [desired('a.example.com')],
    live: [live(1, 'a.example.com'), live(2, 'b.example.com')],
    policy: { prune: true, manage: { include: ['*'], exclude: ['b.*'] } },
    changes: [],
    notes: ["out_of_scope: 1 website outside this configuration's scope [b.example.com]"],
  },
  {
    rule: 'live sites outside manage are never touched, only counted',
    desired: [desired('a.example.com')],
    live: [live(1, 'a.example.com'), live(2, 'other.org'), live(3, 'b.other.org')],
    policy: { prune: true, manage: { include: ['*.example.com'], exclude: [] } },
    changes: [],
    notes: ["out_of_scope: 2 websites outside this configuration's scope [b.other.org other.org]"],
  },
  {
    rule: 'a listed site is managed even outside manage; unlisted ones there are not',
    desired: [desired('a.example.com'), desired('x.example.com', { privacy: 'public' })],
    live: [live(1, 'a.example.com'), live(2, 'x.example.com'), live(3, 'y.example.com')],
    policy: { prune: true, manage: { include: ['*'], exclude: ['x.*', 'y.*'] } },
    changes: ['~ x.example.com (2) privacy: private→public'],
    notes: ["out_of_scope: 1 website outside this configuration's scope [y.example.com]"],
  },
  {
    rule: 'a write-only setting is never compared, and is counted as unverifiable',
    desired: [desired('a.com', { excludeParams: ['utm'] })],
    live: [live(1, 'a.com', {}, { writeOnly: ['excludeParams'] })],
    changes: [],
    notes: ['write_only_unverified: 1 write-only value cannot be verified: the service does not return them [a.com]'],
  },
  {
    rule: '--sync-write-only re-sends every configured write-only value',
    desired: [desired('a.com', { privacy: 'password', excludeParams: ['utm'] }, { password: 'hunter22' })],
    live: [live(1, 'a.com', { privacy: 2 }, { writeOnly: ['excludeParams'], hasPassword: true })],
    policy: { syncWriteOnly: true },
    changes: ['~ a.com (1) excludeParams: (write-only) [utm], password: (write-only)'],
  },
  {
    rule: '--sync-write-only FIELD re-sends only that field',
    ...twoWriteOnlySites,
    policy: { syncWriteOnly: true, syncWriteOnlyFields: ['password'] },
    changes: ['~ a.com (1) password: (write-only)'],
    notes: [
      'write_only_unverified: 3 write-only values cannot be verified: the service does not return them [a.com b.com]',
    ],
  },
  {
    rule: '--sync-write-only DOMAIN|GLOB re-sends every write-only value of those sites only, within --only',
    desired: [
      desired('a.shop.com', { privacy: 'password', excludeParams: ['utm'] }, { password: 'hunter22' }),
      desired('b.shop.com', { excludeParams: ['ref'] }),
      desired('c.com', { excludeParams: ['ref'] }),
    ],
    live: [
      live(1, 'a.shop.com', { privacy: 2 }, { writeOnly: ['excludeParams'], hasPassword: true }),
      live(2, 'b.shop.com', {}, { writeOnly: ['excludeParams'] }),
      live(3, 'c.com', {}, { writeOnly: ['excludeParams'] }),
    ],
    policy: { syncWriteOnly: true, syncWriteOnlySites: ['*.shop.com'], skip: ['b.*'] },
    changes: ['~ a.shop.com (1) excludeParams: (write-only) [utm], password: (write-only)'],
    notes: [
      'write_only_unverified: 3 write-only values cannot be verified: the service does not return them [a.shop.com c.com]',
      'filtered: 1 website left out by --only/--skip [b.shop.com]',
    ],
  },
  {
    rule: '--sync-write-only FIELD and DOMAIN combine: that field of those sites',
    ...twoWriteOnlySites,
    policy: { syncWriteOnly: true, syncWriteOnlyFields: ['excludeParams'], syncWriteOnlySites: ['b.com'] },
    changes: ['~ b.com (2) excludeParams: (write-only) [ref]'],
    notes: [
      'write_only_unverified: 3 write-only values cannot be verified: the service does not return them [a.com b.com]',
    ],
  },
  {
    rule: '--sync-write-only re-sends an unreadable field only when the configuration writes it',
    desired: [
      { ...desired('a.com', { email: true }), raw: { email: true } },
      { ...desired('b.com', { excludeParams: [] }), raw: { exclude_params: [] } },
    ],
    live: [
      live(1, 'a.com', { email: true }, { writeOnly: ['excludeParams'] }),
      live(2, 'b.com', {}, { writeOnly: ['excludeParams'] }),
    ],
    policy: { syncWriteOnly: true },
    changes: ['~ b.com (2) excludeParams: (write-only) []'],
    notes: [
      'write_only_unverified: 2 write-only values cannot be verified: the service does not return them [a.com b.com]',
    ],
  },
  {
    rule: 'ignore_changes: [password] still sends the password when privacy becomes password on a site without one',
    desired: [desired('a.com', { privacy: 'password' }, { password: 'hunter22', ignoreChanges: ['password'] })],
    live: [live(1, 'a.com', { privacy: 0 }, { hasPassword: false })],
    changes: ['~ a.com (1) privacy: public→password, password: (write-only)'],
  },
  {
    rule: 'ignore_changes: [password] sends the password when a password-protected site reports none',
    desired: [desired('a.com', { privacy: 'password' }, { password: 'hunter22', ignoreChanges: ['password'] })],
    live: [live(1, 'a.com', { privacy: 2 }, { hasPassword: false })],
    changes: ['~ a.com (1) password: (write-only)'],
  },
  {
    rule: 'ignore_changes: [password] never re-sends a password the site has, even with --sync-write-only',
    desired: [desired('a.com', { privacy: 'password' }, { password: 'hunter22', ignoreChanges: ['password'] })],
    live: [
      live(1, 'a.com', { privacy: 2 }, { hasPassword: true }),
      { ...live(2, 'b.com', { privacy: 2 }), hasPassword: undefined },
    ],
    policy: { syncWriteOnly: true },
    changes: [],
  },
  {
    rule: 'no password is sent when an ignored privacy stays public',
    desired: [
      desired('a.com', { privacy: 'password' }, { password: 'hunter22', ignoreChanges: ['privacy', 'password'] }),
    ],
    live: [live(1, 'a.com', { privacy: 0 }, { hasPassword: false })],
    changes: [],
    notes: ['ignored_drift: 1 field drifted but is in ignore_changes: not changed [a.com]'],
  },
  {
    rule: 'a password is sent when the live site reports none',
    desired: [desired('a.com', { privacy: 'password' }, { password: 'hunter22' })],
    live: [live(1, 'a.com', { privacy: 1 }, { hasPassword: false })],
    changes: ['~ a.com (1) privacy: private→password, password: (write-only)'],
  },
  {
    rule: 'a password is not re-sent when the live site has one',
    desired: [desired('a.com', { privacy: 'password' }, { password: 'hunter22' })],
    live: [live(1, 'a.com', { privacy: 2 }, { hasPassword: true })],
    changes: [],
  },
  {
    rule: 'ignore_changes fields are shown as ignored drift, never changed',
    desired: [desired('a.com', { email: true, privacy: 'public' }, { ignoreChanges: ['email'] })],
    live: [live(1, 'a.com', { email: 0, privacy: 0 })],
    changes: [],
    notes: ['ignored_drift: 1 field drifted but is in ignore_changes: not changed [a.com]'],
  },
  {
    rule: 'changes are ordered deletes, creates, updates, then by domain',
    desired: [desired('z.com', { email: true }), desired('c.com'), desired('b.com'), desired('a.com', { email: true })],
    live: [live(1, 'z.com'), live(2, 'a.com'), live(3, 'y.com'), live(4, 'x.com')],
    policy: { prune: true },
    changes: [
      '- x.com (4)',
      '- y.com (3)',
      '+ b.com privacy=private, email=false, excludeBots=true, excludeParams=[], excludeIps=[], favorite=false',
      '+ c.com privacy=private, email=false, excludeBots=true, excludeParams=[], excludeIps=[], favorite=false',
      '~ a.com (2) email: false→true',
      '~ z.com (1) email: false→true',
    ],
  },
  {
    rule: '--only and --skip restrict the plan to some domains',
    desired: [desired('a.com', { email: true }), desired('b.com', { email: true }), desired('c.org', { email: true })],
    live: [live(1, 'a.com'), live(2, 'b.com'), live(3, 'c.org')],
    policy: { only: ['*.com'], skip: ['b.*'] },
    changes: ['~ a.com (1) email: false→true'],
    notes: ['filtered: 2 websites left out by --only/--skip [b.com c.org]'],
  },
];

describe('plan: one row per rule', () => {
  it.each(rows)('$rule', (row) => {
    const result = plan(row.desired, row.live, policy(row.policy));
    expect(lines(result)).toEqual(row.changes);
    if (row.notes !== undefined) expect(notes(result)).toEqual(row.notes);
  });
});

describe('plan: data', () => {
  it('summarises counts and fingerprints every touched live site', () => {
    const result = plan(
      [desired('a.com', { email: true }), desired('b.com'), desired('new.com')],
      [live(1, 'a.com'), live(2, 'b.com'), live(3, 'gone.com', {}, { createdAt: '2024-04-30T08:00:00.000000Z' })],
      policy({ prune: true }),
    );
    expect(result.summary).toEqual({
      create: 1,
      update: 1,
      delete: 1,
      unchanged: 1,
      outOfScope: 0,
      kept: 0,
      unverifiable: 0,
      ignoredDrift: 0,
    });
    const deletion = result.changes[0];
    expect(deletion).toMatchObject({ action: 'delete', domain: 'gone.com', createdAt: '2024-04-30T08:00:00.000000Z' });
    expect(deletion?.action === 'delete' && deletion.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('never writes a password value into the plan', () => {
    const result = plan([desired('a.com', { privacy: 'password' }, { password: 'correct-horse' })], [], policy());
    expect(JSON.stringify(result)).not.toContain('correct-horse');
  });

  it('lists unchanged sites that drifted only in ignore_changes fields, without counting a change', () => {
    const ignoring = { ignoreChanges: ['email', 'excludeIps'] as FieldName[] };
    const result = plan(
      [
        desired('b.com', { email: true, excludeIps: ['10.0.0.1'] }, ignoring),
        desired('a.com', { email: true }, ignoring),
        desired('c.com', { email: true, privacy: 'public' }, ignoring),
      ],
      [live(1, 'b.com', { excludeIps: '10.0.0.2' }), live(2, 'a.com'), live(3, 'c.com')],
      policy(),
    );
    expect(result.ignoredOnly).toEqual([
      { domain: 'a.com', id: 2, fields: [{ field: 'email', before: false, after: true }] },
      {
        domain: 'b.com',
        id: 1,
        fields: [
          { field: 'email', before: false, after: true },
          { field: 'excludeIps', before: ['10.0.0.2'], after: ['10.0.0.1'] },
        ],
      },
    ]);
    expect(lines(result)).toEqual(['~ c.com (3) privacy: private→public']);
    expect(result.summary).toMatchObject({ update: 1, unchanged: 2, ignoredDrift: 4 });
    expect(plan([desired('a.com')], [live(1, 'a.com')], policy()).ignoredOnly).toBeUndefined();
  });

  it('ignores a second listing of the same domain', () => {
    const result = plan([desired('a.com', { email: true }), desired('a.com')], [live(1, 'a.com')], policy());
    expect(lines(result)).toEqual(['~ a.com (1) email: false→true']);
  });
});

describe('--sync-write-only values', () => {
  it('field names are a fixed set; every other word is a domain or glob; commas separate', () => {
    expect(parseWriteOnlySync(['', 'exclude_params,password', 'Shop.Example', '*.orbit.example', 'password'])).toEqual({
      fields: ['excludeParams', 'password'],
      sites: ['shop.example', '*.orbit.example'],
    });
    expect(parseWriteOnlySync(['*'])).toEqual({ fields: [], sites: [] });
    expect(parseWriteOnlySync(['*', 'password'])).toEqual(parseWriteOnlySync(['password', '*']));
    expect(() => parseWriteOnlySync(['exclude params'])).toThrow(/neither a field .* nor a domain or glob/);
  });

  it('the policy keeps the selection as data', () => {
    const selected = policyFromConfig(DEFAULT_POLICY, { syncWriteOnly: { fields: ['password'], sites: ['a.com'] } });
    expect(selected).toMatchObject({
      syncWriteOnly: true,
      syncWriteOnlyFields: ['password'],
      syncWriteOnlySites: ['a.com'],
    });
    expect(policyFromConfig(DEFAULT_POLICY, { syncWriteOnly: { fields: [], sites: [] } })).not.toHaveProperty(
      'syncWriteOnlyFields',
    );
  });
});
