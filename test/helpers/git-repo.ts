/**
 * A real git repository in a temporary directory, for tests of the GitOps loop
 * and the baseline (branches, merges, tags, the commit a plan was made from).
 * Small and general: init, write files, commit, branch, check out, merge,
 * rev-parse, a tag's commit. Git runs isolated from the machine's
 * configuration (no global or system config, a fixed author), on `main`, so
 * the machine's git settings cannot change the outcome.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './temp.js';

export interface GitRepo {
  dir: string;
  /** Runs `git ARGS` in the repository; returns its stdout, trimmed. Throws on a non-zero exit. */
  git(...args: string[]): string;
  /** Writes a file of the working tree (folders made as needed); returns its path. */
  write(path: string, text: string): string;
  /**
   * Writes `files` (path → text), stages everything and commits (even with nothing changed); the new commit's id.
   * `date` (ISO 8601) is the commit's author and committer date: real histories are out of order.
   */
  commit(message: string, files?: Record<string, string>, date?: string): string;
  /** Creates branch `name` at `from` (default: the current commit) and checks it out. */
  branch(name: string, from?: string): void;
  checkout(ref: string): void;
  /** Merges `ref` into the current branch with a merge commit (as a pull request's merge button); returns its id. */
  merge(ref: string, message?: string, date?: string): string;
  revParse(ref: string): string;
  /** The current commit's id. */
  head(): string;
  /** The commit a tag names, or undefined when there is no such tag. */
  tagCommit(name: string): string | undefined;
}

const ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'sitesync test',
  GIT_AUTHOR_EMAIL: 'test@sitesync.invalid',
  GIT_COMMITTER_NAME: 'sitesync test',
  GIT_COMMITTER_EMAIL: 'test@sitesync.invalid',
};

const runGit =
  (dir: string, dated?: string) =>
  (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: dir,
      env: { ...process.env, ...ENV, ...(dated && { GIT_AUTHOR_DATE: dated, GIT_COMMITTER_DATE: dated }) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();

/**
 * Writes `files` and commits them as `author` at `date` (author and committer
 * dates alike, so a test can give history dates out of its order); the id.
 */
export function commitAs(
  repo: GitRepo,
  author: string,
  date: string,
  message: string,
  files: Record<string, string> = {},
): string {
  for (const [path, text] of Object.entries(files)) repo.write(path, text);
  repo.git('add', '--all');
  execFileSync('git', ['commit', '--quiet', '--no-gpg-sign', `--author=${author} <author@x.invalid>`, '-m', message], {
    cwd: repo.dir,
    env: { ...process.env, ...ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return repo.head();
}

/** `git init` on `main` in `dir` (default: a fresh temporary directory, removed with the test). */
export function gitRepo(dir: string = tempDir('git')): GitRepo {
  runGit(dir)('init', '--quiet', '--initial-branch=main');
  return repoAt(dir);
}

/**
 * A bare "origin" holding `repo`'s branches and tags (repo gets it as its
 * remote `origin`), as the platform's server holds a configuration repository.
 */
export function bareOrigin(repo: GitRepo): string {
  const dir = tempDir('git-origin');
  runGit(dir)('init', '--quiet', '--bare', '--initial-branch=main');
  repo.git('remote', 'add', 'origin', `file://${dir}`);
  repo.git('push', '--quiet', 'origin', '--all');
  repo.git('push', '--quiet', 'origin', '--tags');
  return dir;
}

/**
 * A clone of `origin` into `dir` (an empty directory) as CI makes it:
 * `actions/checkout` and GitLab fetch depth 1 without tags by default.
 * `options.branch` picks the branch; `full` makes an ordinary clone with tags.
 */
export function cloneOf(origin: string, dir: string, options: { branch?: string; full?: boolean } = {}): GitRepo {
  const shallow = options.full === true ? [] : ['--depth', '1', '--no-tags'];
  const branch = options.branch === undefined ? [] : ['--branch', options.branch];
  runGit(dir)('clone', '--quiet', ...shallow, ...branch, `file://${origin}`, '.');
  return repoAt(dir);
}

function repoAt(dir: string): GitRepo {
  const git = runGit(dir);
  const repo: GitRepo = {
    dir,
    git,
    write(path, text) {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
      return full;
    },
    commit(message, files = {}, date = undefined) {
      for (const [path, text] of Object.entries(files)) repo.write(path, text);
      git('add', '--all');
      runGit(dir, date)('commit', '--quiet', '--allow-empty', '--no-gpg-sign', '-m', message);
      return repo.head();
    },
    branch(name, from = 'HEAD') {
      git('checkout', '--quiet', '-b', name, from);
    },
    checkout(ref) {
      git('checkout', '--quiet', ref);
    },
    merge(ref, message = `Merge ${ref}`, date = undefined) {
      runGit(dir, date)('merge', '--quiet', '--no-ff', '--no-gpg-sign', '-m', message, ref);
      return repo.head();
    },
    revParse(ref) {
      return git('rev-parse', ref);
    },
    head() {
      return repo.revParse('HEAD');
    },
    tagCommit(name) {
      try {
        return git('rev-parse', '--verify', '--quiet', `refs/tags/${name}^{commit}`);
      } catch {
        return undefined;
      }
    },
  };
  return repo;
}
