/**
 * git at the edge: what the baseline needs from the repository that holds the
 * configuration, through the `git` command (read-only, except moving the tag
 * `apply --mark-applied` maintains and fetching a missing baseline from the
 * remote). Never a checkout, never a change to the work tree. Every call runs
 * in the directory of a configuration file, as an asynchronous child process
 * (a long-running command must not block its event loop on git).
 */
import { execFile } from 'node:child_process';

export interface GitOutput {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** git could not be run at all (not installed). */
  missing?: boolean;
}

/** Configuration files beyond this are refused by the loader anyway (4 MiB); the margin is for the listing. */
const MAX_OUTPUT = 16 * 1024 * 1024;

export interface GitOptions {
  /** Ends the child process (a watch that stops). */
  signal?: AbortSignal;
  /** Kills a git that hangs (a fetch from an unreachable remote); none by default. */
  timeoutMs?: number;
}

export function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<GitOutput> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        encoding: 'utf8',
        maxBuffer: MAX_OUTPUT,
        ...(options.signal && { signal: options.signal }),
        ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
        // The environment of the process (PATH, HOME, GIT_*), never a prompt, messages in English.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        // ENOENT: no git at all; any other failure (an exit code, too much output) is git's own answer.
        if (error !== null && (error as NodeJS.ErrnoException).code === 'ENOENT')
          resolve({ ok: false, stdout: '', stderr: error.message, missing: true });
        else resolve({ ok: error === null, stdout, stderr: stderr || (error?.message ?? '') });
      },
    );
  });
}

/** The first line git wrote to stderr: its error message. */
export const firstLine = (out: GitOutput): string => out.stderr.trim().split('\n')[0] ?? '';

/** Whether `dir` is inside a git work tree. */
export async function insideWorkTree(dir: string): Promise<boolean> {
  const out = await git(dir, ['rev-parse', '--is-inside-work-tree']);
  return out.ok && out.stdout.trim() === 'true';
}

/** The commit `ref` names, or undefined when there is none. */
export async function commitOf(dir: string, ref: string): Promise<string | undefined> {
  if (ref.startsWith('-')) return undefined; // never an option to git
  const out = await git(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return out.ok ? out.stdout.trim() : undefined;
}

/** What `name` (relative to `dir`, `./x`) is at `commit`: a file, a directory, or nothing. */
export async function kindAt(dir: string, commit: string, name: string): Promise<'blob' | 'tree' | undefined> {
  const out = await git(dir, ['cat-file', '-t', `${commit}:./${name}`]);
  const kind = out.stdout.trim();
  return out.ok && (kind === 'blob' || kind === 'tree') ? kind : undefined;
}

/** The content of file `name` (relative to `dir`) at `commit`. */
export async function fileAt(dir: string, commit: string, name: string): Promise<string | undefined> {
  const out = await git(dir, ['show', `${commit}:./${name}`]);
  return out.ok ? out.stdout : undefined;
}

/** The file names directly inside `dir` at `commit`. */
export async function filesAt(dir: string, commit: string): Promise<string[]> {
  const out = await git(dir, ['ls-tree', '-z', commit, '--', './']);
  if (!out.ok) return [];
  return out.stdout
    .split('\0')
    .filter((line) => line.includes(' blob '))
    .map((line) => line.slice(line.indexOf('\t') + 1));
}

/** Paths (relative to `dir`) that differ from HEAD: modified, staged, or untracked. */
export async function dirtyPaths(dir: string, paths: readonly string[]): Promise<string[]> {
  const out = await git(dir, ['status', '--porcelain', '--untracked-files=all', '--', ...paths]);
  if (!out.ok) return paths.slice();
  return out.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}

/** Whether `name` is a valid tag name. */
export async function validTagName(dir: string, name: string): Promise<boolean> {
  return !name.startsWith('-') && (await git(dir, ['check-ref-format', `refs/tags/${name}`])).ok;
}

/** Creates or moves the lightweight tag `name` to `commit`; the error text of git when it fails. */
export async function moveTag(dir: string, name: string, commit: string): Promise<string | undefined> {
  const out = await git(dir, ['tag', '--force', name, commit]);
  return out.ok ? undefined : firstLine(out);
}

/** Whether commit `older` is an ancestor of (or equal to) commit `newer`, as far as the local history shows. */
export async function isAncestor(dir: string, older: string, newer: string): Promise<boolean> {
  return (await git(dir, ['merge-base', '--is-ancestor', older, newer])).ok;
}

/**
 * Each blob `commit:./path` names (relative to `dir`), read by one
 * `git cat-file --batch`: undefined for a path missing at its commit.
 */
export function blobsAt(dir: string, names: readonly string[]): Promise<(string | undefined)[]> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      ['cat-file', '--batch'],
      {
        cwd: dir,
        encoding: 'buffer',
        maxBuffer: 64 * MAX_OUTPUT,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      },
      (error, stdout) => {
        if (error !== null) return resolve(names.map(() => undefined));
        const blobs: (string | undefined)[] = [];
        let at = 0;
        for (let i = 0; i < names.length; i++) {
          const end = stdout.indexOf(10, at);
          const header = stdout.toString('utf8', at, end).split(' ');
          at = end + 1;
          // `NAME missing` has no content; any object found is followed by its SIZE bytes.
          if (header.length !== 3 || !/^\d+$/.test(header[2] ?? '')) {
            blobs.push(undefined);
            continue;
          }
          const size = Number(header[2]);
          blobs.push(header[1] === 'blob' ? stdout.toString('utf8', at, at + size) : undefined);
          at += size + 1;
        }
        resolve(blobs);
      },
    );
    child.stdin?.on('error', () => {});
    child.stdin?.end(names.map((name) => `${name}\n`).join(''));
  });
}
