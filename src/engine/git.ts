/**
 * git at the edge: what the baseline needs from the repository that holds the
 * configuration, through the `git` command (read-only, except moving the
 * tag `apply --mark-applied` maintains). Never a checkout, never a change to
 * the work tree. Every call runs in the directory of a configuration file.
 */
import { spawnSync } from 'node:child_process';

export interface GitOutput {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** git could not be run at all (not installed). */
  missing?: boolean;
}

/** Configuration files beyond this are refused by the loader anyway (4 MiB); the margin is for the listing. */
const MAX_OUTPUT = 16 * 1024 * 1024;

export function git(cwd: string, args: readonly string[]): GitOutput {
  const run = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: MAX_OUTPUT,
    // The environment of the process (PATH, HOME, GIT_*), never a prompt, messages in English.
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
  if (run.error !== undefined) return { ok: false, stdout: '', stderr: run.error.message, missing: true };
  return { ok: run.status === 0, stdout: run.stdout, stderr: run.stderr };
}

/** Whether `dir` is inside a git work tree. */
export function insideWorkTree(dir: string): boolean {
  const out = git(dir, ['rev-parse', '--is-inside-work-tree']);
  return out.ok && out.stdout.trim() === 'true';
}

/** The commit `ref` names, or undefined when there is none. */
export function commitOf(dir: string, ref: string): string | undefined {
  if (ref.startsWith('-')) return undefined; // never an option to git
  const out = git(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return out.ok ? out.stdout.trim() : undefined;
}

/** What `name` (relative to `dir`, `./x`) is at `commit`: a file, a directory, or nothing. */
export function kindAt(dir: string, commit: string, name: string): 'blob' | 'tree' | undefined {
  const out = git(dir, ['cat-file', '-t', `${commit}:./${name}`]);
  const kind = out.stdout.trim();
  return out.ok && (kind === 'blob' || kind === 'tree') ? kind : undefined;
}

/** The content of file `name` (relative to `dir`) at `commit`. */
export function fileAt(dir: string, commit: string, name: string): string | undefined {
  const out = git(dir, ['show', `${commit}:./${name}`]);
  return out.ok ? out.stdout : undefined;
}

/** The file names directly inside `dir` at `commit`. */
export function filesAt(dir: string, commit: string): string[] {
  const out = git(dir, ['ls-tree', '-z', commit, '--', './']);
  if (!out.ok) return [];
  return out.stdout
    .split('\0')
    .filter((line) => line.includes(' blob '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
}

/** Paths (relative to `dir`) that differ from HEAD: modified, staged, or untracked. */
export function dirtyPaths(dir: string, paths: readonly string[]): string[] {
  const out = git(dir, ['status', '--porcelain', '--untracked-files=all', '--', ...paths]);
  if (!out.ok) return paths.slice();
  return out.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}

/** Whether `name` is a valid tag name. */
export function validTagName(dir: string, name: string): boolean {
  return !name.startsWith('-') && git(dir, ['check-ref-format', `refs/tags/${name}`]).ok;
}

/** Creates or moves the lightweight tag `name` to `commit`; the error text of git when it fails. */
export function moveTag(dir: string, name: string, commit: string): string | undefined {
  const out = git(dir, ['tag', '--force', name, commit]);
  return out.ok ? undefined : out.stderr.trim().split('\n')[0];
}
