/**
 * The applied tag as the engine guards it (issue 39, mutants 2 to 4): it never
 * moves past a write-only change the plan does not send (a saved plan made
 * without a baseline included), never moves back to an older checkout, and a
 * checkout behind it is refused as a baseline even when the tag is named
 * (`--baseline sitesync-applied`, as ci/replan.sh and ci/drift.sh pass it).
 */
import { describe, expect, it } from 'vitest';
import { applyTarget } from '../../src/engine/apply-target.js';
import { resolveBaseline } from '../../src/engine/baseline.js';
import { markApplied, prepareMarkApplied } from '../../src/engine/mark-applied.js';
import { type GitRepo, gitRepo } from '../helpers/git-repo.js';
import { client } from '../helpers/server.js';
import { applyRequest, applySaved, type EngineFixture, engineFixture, savedPlan } from './support.js';

const TAG = 'sitesync-applied';
const SITES = `version: 1
websites:
  - domain: a.example
`;
const shop = (version: string) => `version: 1
websites:
  - domain: shop.example
    privacy: password
    password: \${SITESYNC_SHOP_PASSWORD}
    password_version: "${version}"
`;

/** Two commits, the tag at the second, the checkout at the first: an old CI runner's clone. */
function behindTheTag(): { repo: GitRepo; v1: string; v2: string } {
  const repo = gitRepo();
  const v1 = repo.commit('v1', { 'websites.yaml': SITES });
  const v2 = repo.commit('v2', { 'websites.yaml': `${SITES}  - domain: b.example\n` });
  repo.git('tag', TAG, v2);
  repo.checkout(v1);
  return { repo, v1, v2 };
}

describe('a checkout behind the applied tag', () => {
  it('cannot move the tag back (apply --no-baseline --mark-applied)', async () => {
    const { repo, v2 } = behindTheTag();
    await expect(prepareMarkApplied([], TAG, { cwd: repo.dir })).rejects.toThrow(
      /^--mark-applied sitesync-applied: the tag would move back: this checkout \(HEAD [0-9a-f]{12}\) is behind the commit the tag names/,
    );
    expect(repo.tagCommit(TAG)).toBe(v2);
    // Ahead of the tag, the same call names the commit the tag moves from.
    repo.checkout('main');
    const mark = await prepareMarkApplied([], TAG, { cwd: repo.dir });
    expect(mark).toMatchObject({ tag: TAG, commit: v2, from: { commit: v2 } });
  });

  it('is refused as a baseline when the tag is named, as when it is the default', async () => {
    const { repo } = behindTheTag();
    const io = { env: {}, cwd: repo.dir };
    const behind =
      /is behind the applied commit sitesync-applied \([0-9a-f]{12}\): what was applied since would show as drift/;
    await expect(resolveBaseline([], { baseline: TAG }, io)).rejects.toThrow(behind);
    await expect(resolveBaseline([], {}, io)).rejects.toThrow(behind);
    await expect(resolveBaseline([], {}, { ...io, env: { SITESYNC_BASELINE: TAG } })).rejects.toThrow(behind);
    // Another tag named by --mark-applied is the applied tag then.
    repo.git('tag', 'prod-applied', TAG);
    await expect(resolveBaseline([], { baseline: 'prod-applied', markApplied: 'prod-applied' }, io)).rejects.toThrow(
      /--baseline prod-applied: this checkout .* is behind the applied commit prod-applied/,
    );
    // An older revision named on purpose is a baseline like any other.
    expect((await resolveBaseline([], { baseline: 'HEAD' }, io))?.ref.ref).toBe('HEAD');
  });
});

describe('a saved plan applied with --mark-applied', () => {
  /** shop.example applied at v1 and tagged; then its password rotated in a new commit. */
  async function rotatedSinceTheTag(): Promise<{ fixture: EngineFixture; repo: GitRepo; v1: string }> {
    const repo = gitRepo();
    const fixture = await engineFixture(repo.dir, { SITESYNC_SHOP_PASSWORD: 'shop-password-0001' });
    const v1 = repo.commit('v1', { 'websites.yaml': shop('1') });
    const mark = await prepareMarkApplied([], TAG, { cwd: repo.dir });
    const first = await applyTarget(applyRequest({ markApplied: TAG, mark }), fixture.context);
    expect(first.kind).toBe('applied');
    await markApplied(mark);
    expect(repo.tagCommit(TAG)).toBe(v1);
    repo.commit('rotate', { 'websites.yaml': shop('2') });
    fixture.context.env = { ...fixture.context.env, SITESYNC_SHOP_PASSWORD: 'shop-password-0002' };
    return { fixture, repo, v1 };
  }

  const passwordHash = async ({ server }: EngineFixture) => {
    const listed = await client(server)('GET', '/api/v1/websites');
    const id: number = listed.body.data.find((site: { domain: string }) => site.domain === 'shop.example').id;
    return (await server.server.store.getWebsite(server.accountId, id))?.passwordHash;
  };

  it('made without a baseline, is refused before anything is written: the tag would pass the rotation', async () => {
    const { fixture, repo, v1 } = await rotatedSinceTheTag();
    const before = await passwordHash(fixture);
    const saved = await savedPlan(fixture, { baseline: false });
    expect(saved.plan.changes).toEqual([]); // without a baseline, nothing shows the new password_version
    const mark = await prepareMarkApplied([], TAG, { cwd: repo.dir });
    await expect(applySaved(fixture, saved, { baseline: false, markApplied: TAG, mark })).rejects.toThrow(
      /^--mark-applied sitesync-applied: the tag would move from [0-9a-f]{12} past write-only changes this plan does not send \(it was made without a baseline\): shop\.example \(password\); nothing was applied/,
    );
    expect(repo.tagCommit(TAG)).toBe(v1);
    expect(await passwordHash(fixture)).toBe(before);
  });

  it('made against the tag, sends the rotation and may move it', async () => {
    const { fixture, repo } = await rotatedSinceTheTag();
    const before = await passwordHash(fixture);
    const saved = await savedPlan(fixture);
    expect(saved.plan.changes.map((change) => `${change.action} ${change.domain}`)).toEqual(['update shop.example']);
    const mark = await prepareMarkApplied([], TAG, { cwd: repo.dir });
    const applied = await applySaved(fixture, saved, { markApplied: TAG, mark });
    expect(applied.kind).toBe('applied');
    expect(await passwordHash(fixture)).not.toBe(before);
  });
});
