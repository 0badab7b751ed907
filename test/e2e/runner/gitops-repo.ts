/**
 * A configuration repository as a team has it on GitHub: a bare "origin", a
 * developer's clone that commits, branches, merges and pushes, sitesync pinned
 * in package-lock.json as a vendored release tarball (vendor/, with its
 * integrity), and pull requests opened and merged in the GitHub stand-in.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GitRepo, gitRepo } from '../../helpers/git-repo.js';
import { tempDir } from '../../helpers/temp.js';
import type { GithubStandIn } from './github-api.js';
import type { GithubEvent } from './github-runner.js';

export interface GitopsRepo {
  origin: string;
  dev: GitRepo;
  /** Pushes `ref` (a branch, or `--tags`) to origin. */
  push(...refs: string[]): void;
  /** A branch from main with `files` committed and pushed, opened as pull request `number`; its event. */
  openPull(number: number, branch: string, files: Record<string, string>, body?: string): GithubEvent;
  /** Merges the pull request's branch into main (a merge commit) and pushes; the push event. */
  merge(number: number, branch: string): GithubEvent;
  /** The commit the tag names in origin, or undefined. */
  originTag(name: string): string | undefined;
}

/** The files that pin sitesync as the release tarball at `tarball`. */
export function pinnedSitesync(tarball: string): Record<string, string | Buffer> {
  const bytes = readFileSync(tarball);
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const resolved = 'file:vendor/sitesync-0.1.0.tgz';
  return {
    'vendor/sitesync-0.1.0.tgz': bytes,
    'package.json': `${JSON.stringify({ private: true, devDependencies: { sitesync: resolved } }, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify(
      {
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { devDependencies: { sitesync: resolved } },
          'node_modules/sitesync': { version: '0.1.0', resolved, integrity, dev: true },
        },
      },
      null,
      2,
    )}\n`,
  };
}

/** `api`: the GitHub stand-in that holds its pull requests (none for GitLab's merge requests). */
export function gitopsRepo(api: GithubStandIn | undefined, initial: Record<string, string | Buffer>): GitopsRepo {
  const origin = tempDir('origin');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  // As GitHub: a commit can be fetched by its id.
  execFileSync('git', ['config', 'uploadpack.allowAnySHA1InWant', 'true'], { cwd: origin });
  const dev = gitRepo();
  dev.git('remote', 'add', 'origin', origin);
  for (const [path, content] of Object.entries(initial)) dev.write(path, content as string);
  dev.commit('initial');
  const repo: GitopsRepo = {
    origin,
    dev,
    push: (...refs) => void dev.git('push', '--quiet', '--force', 'origin', ...refs),
    openPull(number, branch, files, body = '') {
      dev.checkout('main');
      dev.branch(branch);
      // Written before main's newest commits, pushed after them: commit dates out of order, as in real histories.
      const head = dev.commit(`pull request ${number}`, files, new Date(Date.now() - 3 * 3600_000).toISOString());
      repo.push(branch);
      api?.pulls.set(number, { number, body, headSha: head });
      // GitHub's test-merge commit (the head merged into the base), which pull_request runs check out.
      dev.checkout('main');
      dev.git('checkout', '--quiet', '--detach');
      const merge = dev.merge(branch, `Merge ${head} into main`);
      repo.push(`${merge}:refs/pull/${number}/merge`);
      dev.checkout('main');
      return {
        name: 'pull_request',
        checkout: merge,
        sha: merge,
        ref: `refs/pull/${number}/merge`,
        baseRef: 'main',
        payload: { pull_request: { number, head: { sha: head } }, repository: { default_branch: 'main' } },
      };
    },
    merge(number, branch) {
      dev.checkout('main');
      const sha = dev.merge(branch, `Merge pull request #${number}`);
      repo.push('main');
      const pull = api?.pulls.get(number);
      if (pull) pull.mergeSha = sha;
      return pushEvent(sha);
    },
    originTag(name) {
      try {
        return execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${name}^{commit}`], {
          cwd: origin,
          encoding: 'utf8',
        }).trim();
      } catch {
        return undefined;
      }
    },
  };
  repo.push('main');
  return repo;
}

/**
 * A push to main (the apply), or a scheduled run (`name`) on main's head.
 * A schedule's payload has no `repository` (GitHub's own documentation of the
 * event shows none; runs have been seen without it): nothing may rely on it.
 */
export function pushEvent(sha: string, name: GithubEvent['name'] = 'push', checkout = 'main'): GithubEvent {
  const payload = name === 'schedule' ? {} : { repository: { default_branch: 'main' } };
  return { name, checkout, sha, ref: 'refs/heads/main', payload };
}

export const EXAMPLES = join(import.meta.dirname, '../../../examples/ci');
