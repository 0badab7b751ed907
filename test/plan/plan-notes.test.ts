/** What the plan tells beside its changes: notes that name sites, and the creates a caller must refuse. */
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/plan.js';
import { plan, uncreatableDomains } from '../../src/plan/planner.js';
import { desired, live, policy } from './builders.js';

const noteOf = (result: Plan, kind: string) => result.notes.find((note) => note.kind === kind);

describe('password_kept: an update that takes privacy away from password', () => {
  const makePublic = [desired('vault.com', { privacy: 'public', email: true }), desired('open.com')];

  it('names the site whose stored password the service keeps, beside other changed fields', () => {
    const result = plan(
      makePublic,
      [live(1, 'vault.com', { privacy: 2 }, { hasPassword: true }), live(2, 'open.com')],
      policy(),
    );
    expect(result.changes.map((change) => change.domain)).toEqual(['vault.com']);
    expect(noteOf(result, 'password_kept')).toEqual({ kind: 'password_kept', domains: ['vault.com'] });
  });

  it('says nothing when the service holds no password, or privacy stays password', () => {
    const none = plan(makePublic, [live(1, 'vault.com', { privacy: 2 }, { hasPassword: false })], policy());
    expect(none.changes.map((change) => change.action)).toEqual(['create', 'update']);
    expect(noteOf(none, 'password_kept')).toBeUndefined();
    const stays = plan(
      [desired('vault.com', { privacy: 'password', email: true }, { password: 'a-long-test-password' })],
      [live(1, 'vault.com', { privacy: 2 }, { hasPassword: true })],
      policy(),
    );
    expect(stays.changes.map((change) => change.action)).toEqual(['update']);
    expect(noteOf(stays, 'password_kept')).toBeUndefined();
  });
});

describe('uncreatableDomains: creates the service must not be asked for', () => {
  it('lists a create of a domain only adoptable, never a storable create nor an update of an odd live domain', () => {
    const result = plan(
      [desired('-dash.example'), desired('fine.example'), desired('-held.example', { email: true })],
      [live(1, '-held.example')],
      policy(),
    );
    expect(result.changes.map((change) => `${change.action} ${change.domain}`)).toEqual([
      'create -dash.example',
      'create fine.example',
      'update -held.example',
    ]);
    expect(uncreatableDomains(result)).toEqual(['-dash.example']);
  });
});

describe('write_only_unverified on creates', () => {
  it('names only the creates that send a value the service never shows', () => {
    const result = plan(
      [desired('secret.com', { privacy: 'password' }, { password: 'a-long-test-password' }), desired('plain.com')],
      [],
      policy(),
    );
    expect(noteOf(result, 'write_only_unverified')).toMatchObject({ domains: ['secret.com'], count: 1 });
  });
});

describe('duplicate_domain', () => {
  it('names the domain and every id holding it, the one matched first', () => {
    const result = plan(
      [desired('x.example')],
      [live(7, 'x.example.'), live(3, 'x.example'), live(9, 'X.example')],
      policy({ prune: true }),
    );
    expect(noteOf(result, 'duplicate_domain')).toEqual({
      kind: 'duplicate_domain',
      domains: ['x.example'],
      ids: [3, 7, 9],
    });
    expect(result.changes).toEqual([]);
  });
});

describe('prune_unscoped', () => {
  it('names only the deletes, not the creates and updates of the same plan', () => {
    const result = plan(
      [desired('a.com', { email: true }), desired('new.com')],
      [live(1, 'a.com'), live(2, 'gone.com'), live(3, 'also-gone.com')],
      policy({ prune: true }),
    );
    expect(result.changes.map((change) => change.action)).toEqual(['delete', 'delete', 'create', 'update']);
    expect(noteOf(result, 'prune_unscoped')?.domains).toEqual(['also-gone.com', 'gone.com']);
  });
});

describe('a domain listed twice', () => {
  it('is planned once, from its first entry (the config loader refuses duplicates; other callers may not)', () => {
    const result = plan([desired('a.com', { email: true }), desired('a.com', { excludeBots: false })], [], policy());
    expect(result.changes).toHaveLength(1);
    expect(result.changes[0]).toMatchObject({
      action: 'create',
      domain: 'a.com',
      after: { email: true, excludeBots: true },
    });
  });
});
