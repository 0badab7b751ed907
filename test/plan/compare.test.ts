// One site against its live counterpart (src/plan/compare.ts), through the planner:
// write-only fields under ignore_changes, and the password when the server does not say.
import { describe, expect, it } from 'vitest';
import type { FieldName, LiveWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { desired, live, policy } from './builders.js';

/** A live site from a server that does not say whether a password is set. */
function silentOnPassword(site: LiveWebsite): LiveWebsite {
  return { ...site, hasPassword: undefined };
}

const ignoring = (...fields: FieldName[]) => ({ ignoreChanges: fields });
const sentFields = (result: ReturnType<typeof plan>) =>
  result.changes.flatMap((change) => (change.action === 'delete' ? [] : change.fields.map((field) => field.field)));

describe('compareSite', () => {
  it('a write-only field in ignore_changes is never re-sent nor counted as unverifiable', () => {
    const result = plan(
      [desired('a.com', { excludeParams: ['ref'] }, ignoring('excludeParams'))],
      [live(1, 'a.com', {}, { writeOnly: ['excludeParams'] })],
      policy({ syncWriteOnly: true }),
    );
    expect(result.changes).toEqual([]);
    expect(result.summary.unverifiable).toBe(0);
  });

  it('an update records as before only what the service reported', () => {
    const result = plan(
      [desired('a.com', { email: true, excludeParams: ['ref'] })],
      [live(1, 'a.com', {}, { writeOnly: ['excludeParams'] })],
      policy(),
    );
    const [change] = result.changes;
    expect(change?.action === 'update' && Object.keys(change.before)).toEqual([
      'privacy',
      'email',
      'excludeBots',
      'excludeIps',
      'favorite',
    ]);
  });

  it('privacy ignored on a password site that holds none: the configured password is sent', () => {
    const result = plan(
      [desired('a.com', { privacy: 'public' }, { password: 'pw-0123456789abcdef', ignoreChanges: ['privacy'] })],
      [live(1, 'a.com', { privacy: 'password' }, { hasPassword: false })],
      policy(),
    );
    expect(sentFields(result)).toEqual(['password']);
  });

  it('a server that does not say: a password is sent, unless it is ignored on a site already protected', () => {
    const protectedSite = silentOnPassword(live(1, 'a.com', { privacy: 'password' }));
    const withPassword = (extra: { ignoreChanges?: FieldName[] } = {}) =>
      desired('a.com', { privacy: 'password' }, { password: 'pw-0123456789abcdef', ...extra });
    expect(sentFields(plan([withPassword()], [protectedSite], policy()))).toEqual(['password']);
    expect(plan([withPassword(ignoring('password'))], [protectedSite], policy()).changes).toEqual([]);
    const publicSite = silentOnPassword(live(1, 'a.com', { privacy: 'public' }));
    expect(sentFields(plan([withPassword(ignoring('password'))], [publicSite], policy()))).toEqual([
      'privacy',
      'password',
    ]);
  });
});
