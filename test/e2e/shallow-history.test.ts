// A depth-1, tagless clone classifies exactly as a full clone when commit
// dates are out of order, as real teams make them (issue 38, item 1): a merged
// branch older than the merge that moved the applied tag, and a checkout
// behind the tag. The random-history property: test/engine/shallow-ancestry.property.test.ts.
import { describe, expect, it } from 'vitest';
import { config, useCliFixture, workspace } from '../cli/apply-support.js';
import { bareOrigin, cloneOf, type GitRepo, gitRepo } from '../helpers/git-repo.js';

const TAG = 'sitesync-applied';
const at = (time: string) => `2026-01-01T${time}:00Z`;

/** A clone of origin (depth 1 and tagless as CI makes it, or full) with the fixture's server. */
function cloneWith(cli: ReturnType<typeof useCliFixture>, origin: string, options: Parameters<typeof cloneOf>[2]) {
  const ws = workspace(cli.server, { ...cli.ws.env });
  return { ws, clone: cloneOf(origin, ws.dir, options) };
}

const classes = (out: string) => out.split('\n').filter((line) => /Compared|drift\]|pending\]|Classes/.test(line));
/** The classification lines, without where the baseline came from (a full clone has it, a shallow one fetches it). */
const same = (out: string) => classes(out).map((line) => line.replace(', fetched from origin', ''));

describe('a depth-1 clone with out-of-order commit dates classifies as a full clone', () => {
  const cli = useCliFixture({ config: config({ 'a.example': '', 'b.example': '' }) });
  const apply = async () => {
    const run = await cli.ws.run(['apply', '--auto-approve', '--mark-applied', TAG]);
    expect(run.code, run.err).toBe(0);
  };
  const push = (author: GitRepo, ...refs: string[]) => author.git('push', '--quiet', '--force', 'origin', ...refs);

  it("the issue's reproduction: a branch older than the merge that moved the tag is pending, not drift", async () => {
    const author = gitRepo(cli.ws.dir);
    const base = author.commit('base', {}, at('10:00'));
    const origin = bareOrigin(author);
    await apply();
    push(author, `refs/tags/${TAG}`);
    author.branch('x');
    author.commit(
      'x',
      { 'websites.yaml': config({ 'a.example': '', 'b.example': '    exclude_params: [ref]\n' }) },
      at('11:00'),
    );
    author.branch('y', base);
    author.commit('y', { 'websites.yaml': config({ 'c.example': '', 'a.example': '', 'b.example': '' }) }, at('11:30'));
    author.checkout('main');
    author.merge('y', 'merge y', at('12:00'));
    push(author, 'main');
    await apply();
    push(author, `refs/tags/${TAG}`);
    author.merge('x', 'merge x (apply refused: stale)', at('12:10'));
    push(author, 'main');
    author.branch('z');
    const z = config({ 'c.example': '', 'a.example': '', 'b.example': '    exclude_params: [ref]\n', 'd.example': '' });
    author.commit('z', { 'websites.yaml': z }, at('13:00'));
    push(author, 'z');

    const ci = cloneWith(cli, origin, { branch: 'z' });
    expect(ci.clone.git('rev-list', '--count', 'HEAD')).toBe('1');
    const full = cloneWith(cli, origin, { branch: 'z', full: true });
    const fromFull = await full.ws.run(['plan', '--baseline', 'origin/main']);
    const fromShallow = await ci.ws.run(['plan', '--baseline', 'origin/main']);
    expect(fromFull.code, fromFull.err).toBe(0);
    expect(classes(fromFull.out).join('\n')).toMatch(/b\.example .*\[pending\][\s\S]*Classes: 2 pending, 0 drift/);
    expect(fromShallow.code, fromShallow.err).toBe(0);
    expect(same(fromShallow.out)).toEqual(same(fromFull.out));
  }, 90_000);

  it('a checkout behind the applied tag is refused as in a full clone, though a merge between is older than it', async () => {
    cli.ws.write('websites.yaml', config({ 'a.example': '' }, 'prune: true\n'));
    const author = gitRepo(cli.ws.dir);
    const base = author.commit('base', {}, at('10:00'));
    author.branch('press');
    const press = config({ 'a.example': '', 'press.example': '' }, 'prune: true\n');
    author.commit('press', { 'websites.yaml': press }, at('11:00'));
    author.checkout('main');
    author.commit('notes', { 'notes.txt': 'x\n' }, at('12:00'));
    author.branch('release'); // what an old checkout still points at
    author.checkout('main');
    author.merge('press', 'merge press', at('12:30'));
    const origin = bareOrigin(author);
    await apply();
    push(author, `refs/tags/${TAG}`);
    expect(author.revParse('release')).not.toBe(base);

    const runs = await Promise.all(
      [{ branch: 'release' }, { branch: 'release', full: true }].map((options) =>
        cloneWith(cli, origin, options).ws.run(['plan', '--detailed-exitcode']),
      ),
    );
    // The same refusal; a shallow clone read the tag from origin, a full one has it.
    const refusal = (err: string) => err.replace(/[0-9a-f]{12}/g, 'COMMIT').replace(', as on origin', '');
    const [fromShallow, fromFull] = runs.map((run) => ({ ...run, err: refusal(run.err) }));
    expect(fromFull?.code).toBe(1);
    expect(fromFull?.err).toMatch(/is behind the applied commit sitesync-applied/);
    expect(fromShallow).toEqual(fromFull);
  }, 90_000);

  it('a shallow clone that cannot be deepened is refused, never guessed', async () => {
    const author = gitRepo(cli.ws.dir);
    author.commit('base', {}, at('10:00'));
    const origin = bareOrigin(author);
    await apply();
    push(author, `refs/tags/${TAG}`);
    author.commit('later', { 'notes.txt': 'x\n' }, at('11:00'));
    push(author, 'main');
    const ci = cloneWith(cli, origin, {});
    ci.clone.git('fetch', '--quiet', '--depth=1', 'origin', `refs/tags/${TAG}:refs/tags/${TAG}`);
    ci.clone.git('remote', 'remove', 'origin');
    const refused = await ci.ws.run(['plan']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /^error: cannot tell whether [0-9a-f]{12} and [0-9a-f]{12} descend from each other: this clone is shallow and deepening it from origin failed \('origin' does not appear to be a git repository\); fetch the whole history \(git fetch --unshallow origin, or fetch-depth: 0\) and run again\n$/,
    );
  }, 90_000);
});
