/**
 * `--mark-applied TAG` as the engine checks and moves it (mark-applied.ts):
 * the tag may only name a commit whose configuration files are the ones
 * applied, so input from standard input, a bad tag name, a directory outside
 * git and an uncommitted edit of the files applied (the default file or the
 * ones named by -f, and only those) are refused before anything is written;
 * a tag git cannot move is an error, never a silent success (issue 39, the
 * engine gate's surviving mutants).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markApplied, prepareMarkApplied } from '../../src/engine/mark-applied.js';
import { gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp.js';

const TAG = 'sitesync-applied';
const SITES = 'version: 1\nwebsites:\n  - domain: a.example\n';

describe('prepareMarkApplied refuses before anything is applied', () => {
  it('a configuration from standard input, a bad tag name, a directory outside git, a repository without commits', async () => {
    const repo = gitRepo();
    repo.commit('v1', { 'websites.yaml': SITES });
    const io = { cwd: repo.dir };
    for (const stdin of ['-', '/dev/stdin']) {
      await expect(prepareMarkApplied([stdin], TAG, io)).rejects.toThrow(
        '--mark-applied sitesync-applied: the configuration comes from standard input',
      );
    }
    await expect(prepareMarkApplied([], 'bad..name', io)).rejects.toThrow(
      '--mark-applied bad..name: not a valid git tag name',
    );
    const outside = tempDir('outside-git');
    writeFileSync(join(outside, 'websites.yaml'), SITES);
    await expect(prepareMarkApplied([], TAG, { cwd: outside })).rejects.toThrow(
      /^--mark-applied sitesync-applied: .* is not in a git work tree$/,
    );
    const empty = gitRepo();
    empty.write('websites.yaml', SITES);
    await expect(prepareMarkApplied([], TAG, { cwd: empty.dir })).rejects.toThrow(
      '--mark-applied sitesync-applied: the repository has no commit yet',
    );
    expect(repo.tagCommit(TAG)).toBeUndefined();
  });

  it('an uncommitted edit of the files applied (named by -f, or websites.yaml by default), and only of those', async () => {
    const repo = gitRepo();
    const head = repo.commit('v1', { 'websites.yaml': SITES, 'prod.yaml': SITES });
    // A plan file written by CI beside the configuration is no edit of it.
    repo.write('plan.json', '{}');
    expect(await prepareMarkApplied([], TAG, { cwd: repo.dir })).toMatchObject({ tag: TAG, commit: head });
    expect(await prepareMarkApplied(['prod.yaml'], TAG, { cwd: repo.dir })).toMatchObject({ commit: head });

    repo.write('prod.yaml', `${SITES}  - domain: b.example\n`);
    await expect(prepareMarkApplied(['prod.yaml'], TAG, { cwd: repo.dir })).rejects.toThrow(
      '--mark-applied sitesync-applied: the configuration differs from HEAD (prod.yaml): commit it first',
    );
    // The default file is clean: prod.yaml is not what an apply without -f applies.
    expect(await prepareMarkApplied([], TAG, { cwd: repo.dir })).toMatchObject({ commit: head });

    repo.git('checkout', '--', 'prod.yaml');
    repo.write('websites.yaml', `${SITES}  - domain: c.example\n`);
    await expect(prepareMarkApplied([], TAG, { cwd: repo.dir })).rejects.toThrow(
      '--mark-applied sitesync-applied: the configuration differs from HEAD (websites.yaml): commit it first',
    );
    expect(await prepareMarkApplied(['prod.yaml'], TAG, { cwd: repo.dir })).toMatchObject({ commit: head });
    // Every edited file is named.
    repo.write('prod.yaml', `${SITES}  - domain: d.example\n`);
    await expect(prepareMarkApplied(['prod.yaml', 'websites.yaml'], TAG, { cwd: repo.dir })).rejects.toThrow(
      'the configuration differs from HEAD (prod.yaml, websites.yaml): commit it first',
    );
  });
});

describe('markApplied', () => {
  it('names the commit it marks, and says once that nothing was compared before the first mark', async () => {
    const repo = gitRepo();
    const v1 = repo.commit('v1', { 'websites.yaml': SITES });
    const first = await markApplied(await prepareMarkApplied([], TAG, { cwd: repo.dir }));
    expect(first.split('\n')).toEqual([
      `tag ${TAG} now marks ${v1.slice(0, 12)}, the applied commit (push it: git push --force origin refs/tags/${TAG})`,
      `note: ${TAG} did not exist before (here or on origin): write-only values of sites that already existed (passwords, exclude_params) were not compared; apply --sync-write-only sends them once if unsure`,
    ]);
    expect(repo.tagCommit(TAG)).toBe(v1);

    const v2 = repo.commit('v2', { 'websites.yaml': `${SITES}  - domain: b.example\n` });
    const second = await markApplied(await prepareMarkApplied([], TAG, { cwd: repo.dir }));
    expect(second).toBe(
      `tag ${TAG} now marks ${v2.slice(0, 12)}, the applied commit (push it: git push --force origin refs/tags/${TAG})`,
    );
    expect(repo.tagCommit(TAG)).toBe(v2);
  });

  it('is an error when git cannot move the tag (its ref is locked), and the tag stays', async () => {
    const repo = gitRepo();
    const v1 = repo.commit('v1', { 'websites.yaml': SITES });
    repo.git('tag', TAG, v1);
    repo.commit('v2', { 'websites.yaml': `${SITES}  - domain: b.example\n` });
    const mark = await prepareMarkApplied([], TAG, { cwd: repo.dir });
    // Another git process holding the ref: `git tag --force` cannot lock it.
    writeFileSync(join(repo.dir, '.git', 'refs', 'tags', `${TAG}.lock`), '');
    await expect(markApplied(mark)).rejects.toThrow(/^--mark-applied sitesync-applied: .*lock/);
    expect(repo.tagCommit(TAG)).toBe(v1);
  });
});
