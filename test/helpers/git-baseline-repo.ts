/**
 * A real git repository in a test's directory, for the baseline tests:
 * `git init`, commits and tags with a fixed identity and no user or system
 * configuration, so the machine's git settings cannot change the outcome.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface GitBaselineRepo {
  dir: string;
  /** Runs git in the repository; its stdout, trimmed. */
  git(...args: string[]): string;
  /** Writes the files and commits them (and anything else changed); the new commit id. */
  commit(message: string, files?: Record<string, string>): string;
  /** The commit a tag names, or undefined when there is no such tag. */
  tagCommit(name: string): string | undefined;
  head(): string;
}

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'sitesync test',
  GIT_AUTHOR_EMAIL: 'test@sitesync.invalid',
  GIT_COMMITTER_NAME: 'sitesync test',
  GIT_COMMITTER_EMAIL: 'test@sitesync.invalid',
};

/** Makes `dir` (an existing, e.g. temporary, directory) a git repository with branch main. */
export function gitBaselineRepo(dir: string): GitBaselineRepo {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '-q', '-b', 'main');
  return {
    dir,
    git,
    commit(message, files = {}) {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      git('add', '-A');
      git('commit', '-q', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
    tagCommit(name) {
      try {
        return git('rev-parse', '--verify', '--quiet', `refs/tags/${name}^{commit}`);
      } catch {
        return undefined;
      }
    },
    head: () => git('rev-parse', 'HEAD'),
  };
}
