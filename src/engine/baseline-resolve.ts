/**
 * Which commit a baseline is, in the clone as CI makes it (docs/workflows.md,
 * "Baselines in shallow clones"): the ref the user named, the applied tag, or
 * the commit a saved plan recorded, fetched from origin (just that ref,
 * shallowly) when the clone lacks it, and the output says so; how two of
 * them relate: ./git-ancestry.ts. The applied tag
 * is read from origin too when there is one: a stale local tag must not
 * classify what was applied since as drift, and a checkout behind the applied
 * commit is refused rather than planned.
 */
import type { BaselineRef } from '../model/plan.js';
import { commitOf } from './git.js';
import { relation } from './git-ancestry.js';
import { ensureCommit, fetchRef, REMOTE, remoteTag } from './git-remote.js';

export interface Found {
  commit: string;
  /** The remote it was fetched from, when the clone lacked it. */
  fetchedFrom?: string;
}

/** `ref` in the clone, else fetched from origin; the reason as text when neither has it. */
export async function findCommit(dir: string, ref: string): Promise<Found | { error: string }> {
  const local = await commitOf(dir, ref);
  if (local !== undefined) return { commit: local };
  const fetched = await fetchRef(dir, ref);
  if ('error' in fetched) return { error: `not here, and not fetched from ${REMOTE} (${fetched.error})` };
  return { commit: fetched.commit, fetchedFrom: REMOTE };
}

/**
 * The applied tag's commit: origin's when origin has the tag and it is not
 * behind the local one (a tag moved by an apply here and not pushed yet wins),
 * else the local tag; undefined when neither has it.
 */
export async function appliedTag(dir: string, tag: string): Promise<Found | undefined> {
  const local = await commitOf(dir, `refs/tags/${tag}`);
  const remote = await remoteTag(dir, tag);
  if (remote === undefined || remote === local) return local === undefined ? undefined : { commit: local };
  if (!(await ensureCommit(dir, remote))) return local === undefined ? undefined : { commit: local };
  if (local !== undefined && (await relation(dir, remote, local)) === 'before') return { commit: local };
  return { commit: remote, fetchedFrom: REMOTE };
}

/** Whether commit `older` is `newer` or an ancestor of it in origin's history (a shallow clone deepened to tell). */
export async function ancestorOf(dir: string, older: string, newer: string): Promise<boolean> {
  const found = await relation(dir, older, newer);
  return found === 'same' || found === 'before';
}

/**
 * The refusal when HEAD is behind the applied commit: the configuration
 * here is older than what was applied, so what was applied since would look
 * like drift (a site created later, "deleted outside sitesync").
 */
export async function behindApplied(dir: string, applied: Found, what: string): Promise<string | undefined> {
  const head = await commitOf(dir, 'HEAD');
  if (head === undefined || (await relation(dir, head, applied.commit)) !== 'before') return undefined;
  const where = applied.fetchedFrom === undefined ? '' : `, as on ${applied.fetchedFrom}`;
  return `this checkout (HEAD ${head.slice(0, 12)}) is behind ${what} (${applied.commit.slice(0, 12)}${where}): what was applied since would show as drift; update the checkout first (git pull)`;
}

/** The fields of BaselineRef that say where the commit came from. */
export function origin(found: Found): Pick<BaselineRef, 'fetchedFrom'> {
  return found.fetchedFrom === undefined ? {} : { fetchedFrom: found.fetchedFrom };
}
