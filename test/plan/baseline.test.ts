// The pure classification against a git baseline (src/plan/baseline.ts):
// pending, drift, conflict for every field change, create and delete, the
// write-only values a baseline makes sendable, and unlisted sites as drift.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { Baseline, ChangeClass, Plan } from '../../src/model/plan.js';
import type { DesiredWebsite, LiveWebsite, Privacy } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { desired, live, policy } from './builders.js';

function baselineOf(websites: DesiredWebsite[], prune = false): Baseline {
  return {
    ref: { ref: 'sitesync-applied', commit: 'c'.repeat(40), source: 'option' },
    websites,
    policy: { ...DEFAULT_POLICY, prune },
  };
}

const updateOf = (result: Plan, domain: string) => {
  const change = result.changes.find((entry) => entry.domain === domain);
  if (change?.action !== 'update') throw new Error(`no update of ${domain}`);
  return change;
};

describe('field classes: config at REF, config now, live', () => {
  // [at REF, now, live, class] for one readable field (privacy; no password involved).
  const rows: [Privacy, Privacy, Privacy, ChangeClass | 'none'][] = [
    ['private', 'public', 'private', 'pending'], // a merged change not applied yet
    ['public', 'public', 'private', 'drift'], // changed in the web UI
    ['private', 'public', 'password', 'conflict'], // both moved, disagree
    ['private', 'public', 'public', 'none'], // both moved, agree: nothing to do
    ['public', 'public', 'public', 'none'],
  ];
  it.each(rows)('REF %s, now %s, live %s: %s', (atRef, now, liveValue, expected) => {
    const pw = { password: 'pw-0123456789abcdef' };
    const result = plan(
      [desired('a.com', { privacy: now }, now === 'password' ? pw : {})],
      [live(1, 'a.com', { privacy: liveValue }, { hasPassword: liveValue === 'password' })],
      policy(),
      baselineOf([desired('a.com', { privacy: atRef }, atRef === 'password' ? pw : {})]),
    );
    if (expected === 'none') {
      expect(result.changes).toEqual([]);
      expect(result.summary).toMatchObject({ pending: 0, drift: 0, conflict: 0 });
      return;
    }
    const change = updateOf(result, 'a.com');
    expect(change.fields.find((field) => field.field === 'privacy')?.class).toBe(expected);
    expect(change.class).toBe(expected);
    expect(result.summary[expected]).toBe(1);
    expect(result.baseline).toEqual(baselineOf([]).ref);
  });

  it('a site takes its most serious field class, and each field keeps its own', () => {
    const result = plan(
      [desired('a.com', { email: true, favorite: false })],
      [live(1, 'a.com', { email: false, favorite: true })],
      policy(),
      baselineOf([desired('a.com', { email: false, favorite: false })]),
    );
    const change = updateOf(result, 'a.com');
    expect(change.fields.map((field) => [field.field, field.class])).toEqual([
      ['email', 'pending'],
      ['favorite', 'drift'],
    ]);
    expect(change.class).toBe('drift');
    expect(result.summary).toMatchObject({ pending: 0, drift: 1, conflict: 0 });
  });

  it('a site listed since REF (adopted) is pending; a field taken out of ignore_changes is pending', () => {
    const result = plan(
      [desired('new.com', { email: true }), desired('b.com', { email: true })],
      [live(1, 'new.com'), live(2, 'b.com')],
      policy(),
      baselineOf([desired('b.com', { email: true }, { ignoreChanges: ['email'] })]),
    );
    expect(updateOf(result, 'new.com').class).toBe('pending');
    expect(updateOf(result, 'b.com').fields[0]?.class).toBe('pending');
  });

  it('a field compared again because its ignore rule expired is pending, like a rule taken out', () => {
    const ruled = (): DesiredWebsite => ({
      ...desired('a.com', { email: true }, { ignoreChanges: ['email'] }),
      ignoreRules: [{ field: 'email', until: '2026-06-30', reason: 'CRM migration' }],
    });
    const planOn = (today: string) =>
      plan([ruled()], [live(1, 'a.com', { email: false })], policy({ today }), baselineOf([ruled()]));
    expect(planOn('2026-06-30').changes).toEqual([]);
    const expired = planOn('2026-07-01');
    expect(updateOf(expired, 'a.com').fields).toEqual([
      { field: 'email', before: false, after: true, class: 'pending' },
    ]);
    expect(expired.summary).toMatchObject({ pending: 1, drift: 0, conflict: 0 });
    expect(expired.notes.map((note) => note.kind)).toContain('ignore_expired');
  });

  it('without a baseline nothing is classified', () => {
    const result = plan([desired('a.com', { email: true })], [live(1, 'a.com')], policy());
    expect(updateOf(result, 'a.com').class).toBeUndefined();
    expect(result.summary.pending).toBeUndefined();
    expect(result.baseline).toBeUndefined();
  });
});

describe('creates and deletes', () => {
  it('a create is pending when new in the configuration, drift when it was listed at REF', () => {
    const result = plan([desired('new.com'), desired('gone.com')], [], policy(), baselineOf([desired('gone.com')]));
    const classes = Object.fromEntries(result.changes.map((change) => [change.domain, change.class]));
    expect(classes).toEqual({ 'new.com': 'pending', 'gone.com': 'drift' });
    const gone = result.changes.find((change) => change.domain === 'gone.com');
    expect(gone?.action === 'create' && gone.fields[0]?.class).toBe('drift');
  });

  it('a delete is pending when unlisted since REF, drift when REF would have deleted it too', () => {
    const result = plan(
      [desired('keep.com')],
      [live(1, 'keep.com'), live(2, 'removed.com'), live(3, 'stranger.com')],
      policy({ prune: true, limits: { maxDeletes: 10, maxChangePercent: 100 } }),
      baselineOf([desired('keep.com'), desired('removed.com')], true),
    );
    const classes = Object.fromEntries(result.changes.map((change) => [change.domain, change.class]));
    expect(classes).toEqual({ 'removed.com': 'pending', 'stranger.com': 'drift' });
  });

  it('a delete is pending when prune was turned on since REF', () => {
    const result = plan(
      [desired('keep.com')],
      [live(1, 'keep.com'), live(3, 'stranger.com')],
      policy({ prune: true, limits: { maxDeletes: 10, maxChangePercent: 100 } }),
      baselineOf([desired('keep.com')], false),
    );
    expect(result.changes[0]).toMatchObject({ action: 'delete', class: 'pending' });
  });
});

describe('write-only values with a baseline', () => {
  const unreadable = { writeOnly: ['excludeParams' as const] };

  it('exclude_params changed since REF is a pending update of exactly that site', () => {
    const result = plan(
      [desired('a.com', { excludeParams: ['ref', 'utm_source'] }), desired('b.com', { excludeParams: ['x'] })],
      [live(1, 'a.com', {}, unreadable), live(2, 'b.com', {}, unreadable)],
      policy(),
      baselineOf([desired('a.com', { excludeParams: ['ref'] }), desired('b.com', { excludeParams: ['x'] })]),
    );
    expect(result.changes).toHaveLength(1);
    expect(updateOf(result, 'a.com').fields).toEqual([
      { field: 'excludeParams', after: ['ref', 'utm_source'], writeOnly: true, class: 'pending' },
    ]);
    // Without the baseline the same change plans nothing: the service never returns the value.
    expect(
      plan([desired('a.com', { excludeParams: ['ref', 'utm_source'] })], [live(1, 'a.com', {}, unreadable)], policy())
        .changes,
    ).toEqual([]);
  });

  it('a changed password_version re-sends that password only (pending); the same version sends nothing', () => {
    const site = (domain: string, version: string) => {
      const entry = desired(domain, { privacy: 'password' }, { password: 'pw-0123456789abcdef' });
      entry.passwordVersion = version;
      return entry;
    };
    const result = plan(
      [site('a.com', '2'), site('b.com', '1')],
      [
        live(1, 'a.com', { privacy: 'password' }, { hasPassword: true }),
        live(2, 'b.com', { privacy: 'password' }, { hasPassword: true }),
      ],
      policy(),
      baselineOf([site('a.com', '1'), site('b.com', '1')]),
    );
    expect(result.changes.map((change) => change.domain)).toEqual(['a.com']);
    expect(updateOf(result, 'a.com').fields).toEqual([{ field: 'password', writeOnly: true, class: 'pending' }]);
    expect(JSON.stringify(result)).not.toContain('pw-0123456789abcdef');
  });

  it('a password the live site lost while the configuration did not change is drift', () => {
    const site = desired('a.com', { privacy: 'password' }, { password: 'pw-0123456789abcdef' });
    const result = plan(
      [site],
      [live(1, 'a.com', { privacy: 'password' }, { hasPassword: false })],
      policy(),
      baselineOf([site]),
    );
    expect(updateOf(result, 'a.com').fields).toEqual([{ field: 'password', writeOnly: true, class: 'drift' }]);
  });
});

describe('--unlisted-is-drift', () => {
  it('an unlisted site in scope with prune off is drift; one listed at REF is only kept', () => {
    const result = plan(
      [desired('a.com')],
      [live(1, 'a.com'), live(2, 'stranger.com'), live(3, 'was-listed.com')],
      policy({ unlistedIsDrift: true }),
      baselineOf([desired('a.com'), desired('was-listed.com')]),
    );
    expect(result.notes).toContainEqual({ kind: 'unlisted_drift', domains: ['stranger.com'] });
    expect(result.notes).toContainEqual({ kind: 'kept_not_in_config', domains: ['was-listed.com'] });
    expect(result.summary).toMatchObject({ drift: 1, kept: 2, pending: 0, conflict: 0 });
  });

  it('works without a baseline too: only the drift count is set', () => {
    const result = plan(
      [desired('a.com')],
      [live(1, 'a.com'), live(2, 'stranger.com')],
      policy({ unlistedIsDrift: true }),
    );
    expect(result.summary.drift).toBe(1);
    expect(result.summary.pending).toBeUndefined();
  });
});

describe('properties', () => {
  const privacyArb = fc.constantFrom<Privacy>('public', 'private');
  test.prop([fc.array(fc.tuple(privacyArb, privacyArb, privacyArb, fc.boolean(), fc.boolean()), { maxLength: 6 })], {
    seed: 13,
    numRuns: 200,
  })('every change gets the class its three values say, and the summary counts them', (rows) => {
    const now: DesiredWebsite[] = [];
    const atRef: DesiredWebsite[] = [];
    const current: LiveWebsite[] = [];
    rows.forEach(([ref, desiredPrivacy, livePrivacy, email, liveEmail], i) => {
      const domain = `s${i}.com`;
      now.push(desired(domain, { privacy: desiredPrivacy, email }));
      atRef.push(desired(domain, { privacy: ref, email }));
      current.push(live(i + 1, domain, { privacy: livePrivacy, email: liveEmail }));
    });
    const result = plan(now, current, policy(), baselineOf(atRef));
    const counts = { pending: 0, drift: 0, conflict: 0 };
    for (const change of result.changes) {
      expect(change.action).toBe('update');
      if (change.action !== 'update') continue;
      const i = Number(change.domain.slice(1, -4));
      const [ref, desiredPrivacy, livePrivacy, email, liveEmail] = rows[i]!;
      for (const field of change.fields) {
        const [base, want, have] =
          field.field === 'privacy' ? [ref, desiredPrivacy, livePrivacy] : [email, email, liveEmail];
        const expected: ChangeClass = base !== want && base !== have ? 'conflict' : base === want ? 'drift' : 'pending';
        expect(field.class).toBe(expected);
      }
      counts[change.class!] += 1;
    }
    expect(result.summary).toMatchObject(counts);
  });
});

describe('write-only values with a baseline: what is sent once, in field order, or not at all', () => {
  const unreadable = { writeOnly: ['excludeParams' as const] };
  const withVersion = (site: DesiredWebsite, version: string) => Object.assign(site, { passwordVersion: version });
  const protectedSite = (version: string, extra: { ignoreChanges?: ('password' | 'email')[] } = {}) =>
    withVersion(desired('a.com', { privacy: 'password' }, { password: 'pw-0123456789abcdef', ...extra }), version);
  const protectedLive = (hasPassword?: boolean) => {
    const site = live(1, 'a.com', { privacy: 'password' }, { hasPassword: true });
    if (hasPassword === undefined) delete site.hasPassword;
    else site.hasPassword = hasPassword;
    return site;
  };

  it('a write-only value in ignore_changes is not sent, however it changed since REF', () => {
    const result = plan(
      [desired('a.com', { excludeParams: ['ref', 'utm_source'] }, { ignoreChanges: ['excludeParams'] })],
      [live(1, 'a.com', {}, unreadable)],
      policy(),
      baselineOf([desired('a.com', { excludeParams: ['ref'] })]),
    );
    expect(result.changes).toEqual([]);
  });

  it('a value --sync-write-only already sends is sent once', () => {
    const result = plan(
      [desired('a.com', { excludeParams: ['ref', 'utm_source'] })],
      [live(1, 'a.com', {}, unreadable)],
      policy({ syncWriteOnly: true }),
      baselineOf([desired('a.com', { excludeParams: ['ref'] })]),
    );
    expect(updateOf(result, 'a.com').fields).toEqual([
      { field: 'excludeParams', after: ['ref', 'utm_source'], writeOnly: true, class: 'pending' },
    ]);
  });

  it('a write-only value joins the readable changes in field order', () => {
    const result = plan(
      [desired('a.com', { excludeParams: ['ref', 'utm_source'], favorite: true, privacy: 'public' })],
      [live(1, 'a.com', {}, unreadable)],
      policy(),
      baselineOf([desired('a.com', { excludeParams: ['ref'] })]),
    );
    expect(updateOf(result, 'a.com').fields.map((field) => field.field)).toEqual([
      'privacy',
      'excludeParams',
      'favorite',
    ]);
  });

  it('a rotation sends the password once, also when --sync-write-only sends it', () => {
    const result = plan(
      [protectedSite('2')],
      [protectedLive(true)],
      policy({ syncWriteOnly: true }),
      baselineOf([protectedSite('1')]),
    );
    expect(updateOf(result, 'a.com').fields).toEqual([{ field: 'password', writeOnly: true, class: 'pending' }]);
  });

  it('a rotation of a password in ignore_changes sends nothing', () => {
    const result = plan(
      [protectedSite('2', { ignoreChanges: ['password'] })],
      [protectedLive(true)],
      policy(),
      baselineOf([protectedSite('1')]),
    );
    expect(result.changes).toEqual([]);
  });

  it('a site that became password-protected since REF sends its password as pending', () => {
    const result = plan(
      [protectedSite('1')],
      [live(1, 'a.com', { privacy: 'private' }, { hasPassword: false })],
      policy(),
      baselineOf([desired('a.com', { privacy: 'private' })]),
    );
    expect(updateOf(result, 'a.com').fields).toEqual([
      { field: 'privacy', before: 'private', after: 'password', class: 'pending' },
      { field: 'password', writeOnly: true, class: 'pending' },
    ]);
  });

  it('a server that does not say whether a password is set: the password is sent, and not called drift', () => {
    const result = plan([protectedSite('1')], [protectedLive(undefined)], policy(), baselineOf([protectedSite('1')]));
    expect(updateOf(result, 'a.com').fields).toEqual([{ field: 'password', writeOnly: true, class: 'pending' }]);
  });
});

describe('deletes the configuration at REF would not have made', () => {
  const deleting = policy({ prune: true, limits: { maxDeletes: 10, maxChangePercent: 100 } });
  const classesWith = (atRef: Partial<Baseline['policy']>) => {
    const base = baselineOf([desired('keep.com')], true);
    base.policy = { ...base.policy, ...atRef };
    const result = plan([desired('keep.com')], [live(1, 'keep.com'), live(2, 'stranger.com')], deleting, base);
    return result.changes.map((change) => [change.action, change.domain, change.class]);
  };

  it('is drift when REF would have deleted it too', () => {
    expect(classesWith({})).toEqual([['delete', 'stranger.com', 'drift']]);
  });

  it('is pending when the scope widened since REF or the site was protected at REF', () => {
    expect(classesWith({ manage: { include: ['keep.com'], exclude: [] } })).toEqual([
      ['delete', 'stranger.com', 'pending'],
    ]);
    expect(classesWith({ protect: ['stranger.com'] })).toEqual([['delete', 'stranger.com', 'pending']]);
  });
});

describe('passwords and readable values against REF', () => {
  const pw = { password: 'pw-0123456789abcdef' };
  const site = (privacy: Privacy, version?: string, extra: { password?: string } = pw) => {
    const entry = desired('a.com', { privacy }, extra);
    if (version !== undefined) entry.passwordVersion = version;
    return entry;
  };
  const classify = (now: DesiredWebsite, atRef: DesiredWebsite, current: LiveWebsite) =>
    plan([now], [current], policy(), baselineOf([atRef])).changes.flatMap((change) =>
      change.action === 'update'
        ? change.fields.map((field): unknown[] => [field.field, field.class])
        : [[change.action] as unknown[]],
    );

  it('a readable value the live site already has is not sent again, even beside an unreadable one', () => {
    const now = desired('a.com', { email: true, excludeParams: ['ref'] });
    const atRef = desired('a.com', { email: false, excludeParams: ['ref'] });
    expect(classify(now, atRef, live(1, 'a.com', { email: true }, { writeOnly: ['excludeParams'] }))).toEqual([]);
  });

  it('a password removed from, or added to, the configuration since REF is not sent to a protected site', () => {
    const protectedLive = live(1, 'a.com', { privacy: 'password' }, { hasPassword: true });
    expect(classify(site('password', undefined, {}), site('password', '1'), protectedLive)).toEqual([]);
    expect(classify(site('password', '1'), site('password', undefined, {}), protectedLive)).toEqual([]);
  });

  it('the password of a site that became protected, or of a rotation, is pending even where the live site has none', () => {
    const unprotected = live(1, 'a.com', { privacy: 'private' }, { hasPassword: false });
    expect(classify(site('password'), site('private', undefined, {}), unprotected)).toEqual([
      ['privacy', 'pending'],
      ['password', 'pending'],
    ]);
    const lost = live(1, 'a.com', { privacy: 'password' }, { hasPassword: false });
    expect(classify(site('password', '2'), site('password', '1'), lost)).toEqual([['password', 'pending']]);
    expect(classify(site('password', '1'), site('password', '1'), lost)).toEqual([['password', 'drift']]);
  });

  it('a site is as serious as its worst field, whichever comes first', () => {
    const result = plan(
      [desired('a.com', { email: false, favorite: true })],
      [live(1, 'a.com', { email: true, favorite: false })],
      policy(),
      baselineOf([desired('a.com', { email: false, favorite: false })]),
    );
    expect(updateOf(result, 'a.com').fields.map((field) => field.class)).toEqual(['drift', 'pending']);
    expect(updateOf(result, 'a.com').class).toBe('drift');
  });
});
