/**
 * `apply --mark-applied TAG`: checked before anything is applied, the tag
 * moved after a fully successful, read-back-verified apply. The tag says
 * "this commit's configuration is live", so a move must not lie: the files
 * equal HEAD, HEAD is not behind the applied commit, and every write-only
 * change since the commit the tag moves from was judged (./write-only-since.ts).
 */
import { resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, displayPath } from '../config/files.js';
import { SitesyncError } from '../model/errors.js';
import { gitDir } from './baseline.js';
import { appliedTag, behindApplied, type Found } from './baseline-resolve.js';
import type { EngineContext as Io } from './context.js';
import { commitOf, dirtyPaths, insideWorkTree, moveTag, validTagName } from './git.js';

export interface MarkTarget {
  dir: string;
  tag: string;
  /** HEAD of the configuration's repository when the apply started. */
  commit: string;
  /** The commit the tag names now (here or on origin); undefined for the first mark. */
  from?: Found;
}

/**
 * Checks before anything is applied that `--mark-applied TAG` can be honoured:
 * a git work tree, a valid tag name, configuration files that equal HEAD
 * (the tag names the commit that was applied; uncommitted edits would make it
 * lie), and a HEAD that is not behind the commit the tag names already.
 */
export async function prepareMarkApplied(
  files: readonly string[],
  tag: string,
  io: Pick<Io, 'cwd'>,
): Promise<MarkTarget> {
  const dir = gitDir(files, io.cwd);
  const fail = (message: string) => new SitesyncError('usage', `--mark-applied ${tag}: ${message}`);
  if (files.some((file) => file === '-' || file === '/dev/stdin'))
    throw fail('the configuration comes from standard input');
  if (!(await insideWorkTree(dir))) throw fail(`${displayPath(dir, io.cwd)} is not in a git work tree`);
  if (!(await validTagName(dir, tag))) throw fail('not a valid git tag name');
  const commit = await commitOf(dir, 'HEAD');
  if (commit === undefined) throw fail('the repository has no commit yet');
  const paths = (files.length > 0 ? files : [DEFAULT_CONFIG_FILE]).map((file) => resolve(io.cwd, file));
  const dirty = await dirtyPaths(dir, paths);
  if (dirty.length > 0) {
    throw fail(
      `the configuration differs from HEAD (${dirty.join(', ')}): commit it first, so the tag names what is applied`,
    );
  }
  const from = await appliedTag(dir, tag);
  const behind = from === undefined ? undefined : await behindApplied(dir, from, `the commit the tag names`);
  if (behind !== undefined) throw fail(`the tag would move back: ${behind}`);
  return { dir, tag, commit, ...(from !== undefined && { from }) };
}

/** Moves the tag after a fully successful, read-back-verified apply; the line to print. */
export async function markApplied(target: MarkTarget): Promise<string> {
  const error = await moveTag(target.dir, target.tag, target.commit);
  if (error !== undefined) throw new SitesyncError('config', `--mark-applied ${target.tag}: ${error}`);
  const line = `tag ${target.tag} now marks ${target.commit.slice(0, 12)}, the applied commit (push it: git push --force origin refs/tags/${target.tag})`;
  if (target.from !== undefined) return line;
  // Nothing to judge write-only changes since: say what that means rather than imply they were checked.
  return `${line}\nnote: ${target.tag} did not exist before (here or on origin): write-only values of sites that already existed (passwords, exclude_params) were not compared; apply --sync-write-only sends them once if unsure`;
}
