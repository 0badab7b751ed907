// Baselines in clones as CI makes them (depth 1, no tags; test/helpers/git-repo.ts
// cloneOf) against the reference server: the apply on merge finds the base
// commit its plan recorded (issue 22, item 1); the re-plan path sends a
// password rotation, or refuses to move the tag (item 2); an old checkout
// behind the applied tag is refused, not reported as drift (item 3); merged
// work that was never applied is pending in a pull request's plan (item 4).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliFixture, config, useCliFixture, type Workspace, workspace } from '../cli/apply-support.js';
import { bareOrigin, cloneOf, type GitRepo, gitRepo } from '../helpers/git-repo.js';

const TAG = 'sitesync-applied';
const PASSWORDS = { SITESYNC_SHOP_PASSWORD: 'shop-password-0001' };
const shop = (version: string) =>
  `    privacy: password\n    password: \${SITESYNC_SHOP_PASSWORD}\n    password_version: "${version}"\n`;
const V1 = config({ 'a.example': '    email: false\n', 'shop.example': shop('1') });

/** The author's repository: v1 committed, applied, tagged, and pushed to a bare origin. */
async function appliedOrigin(cli: CliFixture): Promise<{ author: GitRepo; origin: string }> {
  const author = gitRepo(cli.ws.dir);
  author.commit('v1');
  const applied = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
  expect(applied.code, applied.err).toBe(0);
  return { author, origin: bareOrigin(author) };
}

/** A CI job's checkout of origin's main (depth 1, no tags), with the same server and passwords. */
function ciJob(cli: CliFixture, origin: string, options: Parameters<typeof cloneOf>[2] = {}): [Workspace, GitRepo] {
  const ws = workspace(cli.server, { ...cli.ws.env });
  return [ws, cloneOf(origin, ws.dir, options)];
}

describe('baselines in shallow, tagless clones', () => {
  const cli = useCliFixture({ config: V1, env: PASSWORDS });

  it('apply on merge: the base commit the plan recorded is fetched, the tag moves (item 1)', async () => {
    const { author } = await appliedOrigin(cli);
    author.branch('pr');
    author.commit('a: e-mail reports on', { 'websites.yaml': config({ 'a.example': '', 'shop.example': shop('1') }) });
    const planned = await cli.ws.run(['plan', '--baseline', 'main', '--out', 'plan.json']);
    expect(planned.code, planned.err).toBe(0);
    author.checkout('main');
    const merged = author.merge('pr');
    author.git('push', '--quiet', 'origin', 'main');

    const [ci, clone] = ciJob(cli, author.git('remote', 'get-url', 'origin').slice('file://'.length));
    expect(clone.git('rev-list', '--count', 'HEAD')).toBe('1'); // the base commit is not here
    copyFileSync(join(cli.ws.dir, 'plan.json'), join(ci.dir, 'plan.json'));
    const applied = await ci.run(['apply', 'plan.json']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).not.toContain('--baseline');
    expect(applied.err).toMatch(
      /^note: the baseline main \([0-9a-f]{12}\) of plan\.json was fetched from origin: this clone lacked it$/m,
    );
    // The same plan again with the tag to move: nothing left to do, the tag marks the merge.
    const marked = await ci.run(['apply', 'plan.json', '--mark-applied', TAG]);
    expect(marked.code, marked.err).toBe(0);
    expect(clone.tagCommit(TAG)).toBe(merged);
  });

  it('a recorded base commit found nowhere is named as the plan recorded it, never as a --baseline', async () => {
    const { author, origin } = await appliedOrigin(cli);
    author.commit('a: e-mail reports on', { 'websites.yaml': config({ 'a.example': '', 'shop.example': shop('1') }) });
    expect((await cli.ws.run(['plan', '--baseline', 'HEAD~1', '--out', 'plan.json'])).code).toBe(0);
    author.git('push', '--quiet', 'origin', 'main');
    const [ci, clone] = ciJob(cli, origin);
    clone.git('remote', 'remove', 'origin');
    copyFileSync(join(cli.ws.dir, 'plan.json'), join(ci.dir, 'plan.json'));
    const refused = await ci.run(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /^error: the baseline HEAD~1 recorded in plan\.json, [0-9a-f]{40}: no such revision in the git repository of \S+: not here, and not fetched from origin \(no remote origin\)\n$/,
    );
  });

  it('the re-plan path sends a password rotation: the applied tag comes from origin (item 2)', async () => {
    const { author, origin } = await appliedOrigin(cli);
    const store = cli.server.server.store;
    const before = (await store.getWebsite(cli.server.accountId, 2))?.passwordHash;
    author.commit('rotate', {
      'websites.yaml': config({ 'a.example': '    email: false\n', 'shop.example': shop('2') }),
    });
    author.git('push', '--quiet', 'origin', 'main');

    const [ci, clone] = ciJob(cli, origin);
    ci.env.SITESYNC_SHOP_PASSWORD = 'shop-password-0002';
    const applied = await ci.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toMatch(
      /Compared with the default baseline sitesync-applied \([0-9a-f]{12}, fetched from origin\)/,
    );
    expect(applied.out).toContain('password: (write-only) will be sent [pending]');
    const after = await store.getWebsite(cli.server.accountId, 2);
    expect(after?.domain).toBe('shop.example');
    expect(after?.passwordHash).not.toBe(before);
    expect(clone.tagCommit(TAG)).toBe(clone.head());
  });

  it('without a baseline, an apply that would move the tag past a rotation is refused and says which (item 2)', async () => {
    const { author, origin } = await appliedOrigin(cli);
    author.commit('rotate', {
      'websites.yaml': config({ 'a.example': '    email: false\n', 'shop.example': shop('2') }),
    });
    author.git('push', '--quiet', 'origin', 'main');
    const [ci, clone] = ciJob(cli, origin);
    const refused = await ci.run(['apply', '--auto-approve', '--no-baseline', '--mark-applied', TAG]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /--mark-applied sitesync-applied: the tag would move from [0-9a-f]{12} past write-only changes this plan does not send \(it was made without a baseline\): shop\.example \(password\); nothing was applied/,
    );
    expect(clone.tagCommit(TAG)).toBeUndefined();
  });

  it('a checkout behind the applied tag is refused, not reported as drift (item 3)', async () => {
    cli.ws.write('websites.yaml', config({ 'a.example': '' }, 'prune: true\n'));
    const { author, origin } = await appliedOrigin(cli);
    const [old, oldClone] = ciJob(cli, origin, { full: true });
    expect(oldClone.tagCommit(TAG)).toBe(author.head());
    // Later: press.example is added, applied and tagged; the tag is pushed.
    author.commit('press', { 'websites.yaml': config({ 'a.example': '', 'press.example': '' }, 'prune: true\n') });
    expect((await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG])).code).toBe(0);
    author.git('push', '--quiet', '--force', 'origin', 'main', `refs/tags/${TAG}`);

    const drift = await old.run(['plan', '--detailed-exitcode']);
    expect(drift.code).toBe(1);
    expect(drift.out).not.toContain('[drift]');
    expect(drift.err.trim()).toMatch(
      /^error: the default baseline sitesync-applied: this checkout \(HEAD [0-9a-f]{12}\) is behind the applied commit sitesync-applied \([0-9a-f]{12}, as on origin\): what was applied since would show as drift; update the checkout first \(git pull\)/,
    );
    oldClone.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    expect((await old.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('merged work that was never applied is pending in a pull request plan, not drift (item 4)', async () => {
    const { author, origin } = await appliedOrigin(cli);
    // Merged, but its apply failed: never applied, the tag stays at v1.
    author.commit('new site', {
      'websites.yaml': config({ 'a.example': '    email: false\n', 'new.example': '', 'shop.example': shop('1') }),
    });
    author.git('push', '--quiet', 'origin', 'main');
    author.branch('pr');
    author.commit('a: e-mail on', {
      'websites.yaml': config({ 'a.example': '    email: true\n', 'new.example': '', 'shop.example': shop('1') }),
    });
    author.git('push', '--quiet', 'origin', 'pr');

    const [pr] = ciJob(cli, origin, { branch: 'pr' });
    const run = await pr.run(['plan', '--baseline', 'origin/main', '--detailed-exitcode', '--format', 'json']);
    expect(run.code, run.err).toBe(2);
    const json = JSON.parse(run.out);
    expect(json.changes.map((change: { domain: string; class: string }) => [change.domain, change.class])).toEqual([
      ['new.example', 'pending'],
      ['a.example', 'pending'],
    ]);
    expect(json.baseline).toMatchObject({ ref: TAG, fetchedFrom: 'origin', insteadOf: { ref: 'origin/main' } });
    const text = await pr.run(['plan', '--baseline', 'origin/main']);
    expect(text.out).toContain('origin/main (');
    expect(text.out).toContain(
      'is ahead of the applied tag: its changes were not applied yet, so they are pending, not drift',
    );
  });
});
