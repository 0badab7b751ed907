/**
 * The configuration's root (issue 33 item 2): every file a configuration reads
 * (the files given, a directory's files, a target's `files:` and `key_file`)
 * stays inside it once paths and symlinks are resolved. The root is the git
 * top level of the first file's directory (found by its `.git`, a directory or
 * a worktree's file), or that directory when it is in no repository. A pull
 * request can change the files and add symlinks, so without this a plan job
 * read any file of the runner and quoted it in the pull request's comment.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

export interface ConfigRoot {
  /** The real path of the root. */
  path: string;
  /** What it is, as messages say it. */
  kind: 'the git top level' | 'the directory of the first file';
}

/** The root of a configuration whose first file is in `directory`; undefined when the directory cannot be resolved. */
export function configRoot(directory: string): ConfigRoot | undefined {
  let real: string;
  try {
    real = realpathSync(directory);
  } catch {
    return undefined; // no such directory: reading the file says so
  }
  for (let dir = real; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return { path: dir, kind: 'the git top level' };
    if (dirname(dir) === dir) return { path: real, kind: 'the directory of the first file' };
  }
}

/**
 * Why `path` may not be read (it resolves outside `root`), or undefined when
 * it may; a path that does not resolve is left to the read, which reports it.
 */
export function outsideRoot(path: string, root: ConfigRoot | undefined): string | undefined {
  if (root === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  const inside = relative(root.path, real);
  if (inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) return undefined;
  return `is outside the configuration's root ${root.path} (${root.kind}) once paths and symlinks are resolved: refused, a configuration reads only files inside its repository (docs/config.md)`;
}
