/**
 * What the baseline needs from the remote `origin` when the clone lacks it:
 * CI clones are shallow (depth 1) and tagless, so the applied tag, a base
 * branch or the commit a saved plan recorded are often missing. Each fetch
 * takes just that ref (shallowly in a shallow clone, without tags), never
 * touches the work tree, and reports git's own error line when it fails.
 */
import { commitOf, firstLine, type GitOutput, git } from './git.js';

/** The one remote sitesync fetches from (what actions/checkout and GitLab runners name the clone's origin). */
export const REMOTE = 'origin';

export type Fetched = { commit: string } | { error: string };

export async function hasRemote(dir: string): Promise<boolean> {
  return (await git(dir, ['remote', 'get-url', REMOTE])).ok;
}

async function isShallow(dir: string): Promise<boolean> {
  return (await git(dir, ['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true';
}

/**
 * How sitesync fetches: no tags, no FETCH_HEAD, and no automatic maintenance
 * afterwards (a CI clone lives for one job; a gc there is time lost).
 */
export const FETCH = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-auto-maintenance'] as const;

/** `git fetch` of one refspec: depth 1 in a shallow clone (a full clone stays full). */
async function fetchOne(dir: string, refspec: string): Promise<GitOutput> {
  const depth = (await isShallow(dir)) ? ['--depth=1'] : [];
  return git(dir, [...FETCH, ...depth, REMOTE, refspec]);
}

const FULL_COMMIT = /^[0-9a-f]{40}$/i;

/**
 * Fetches `ref` from origin and returns the commit it names there: a full
 * commit id as itself, `origin/NAME` as branch NAME (into refs/remotes/origin),
 * any other name as a tag (kept as the same local tag), else as a branch.
 */
export async function fetchRef(dir: string, ref: string): Promise<Fetched> {
  if (ref.startsWith('-')) return { error: 'not a revision' };
  if (!(await hasRemote(dir))) return { error: `no remote ${REMOTE}` };
  const branch = ref.startsWith(`${REMOTE}/`) ? ref.slice(REMOTE.length + 1) : undefined;
  const attempts: [refspec: string, local: string][] = FULL_COMMIT.test(ref)
    ? [[ref, ref]]
    : branch !== undefined
      ? [[`+refs/heads/${branch}:refs/remotes/${REMOTE}/${branch}`, `refs/remotes/${REMOTE}/${branch}`]]
      : [
          [`+refs/tags/${ref}:refs/tags/${ref}`, `refs/tags/${ref}`],
          [`+refs/heads/${ref}:refs/remotes/${REMOTE}/${ref}`, `refs/remotes/${REMOTE}/${ref}`],
        ];
  let error = 'not found';
  for (const [refspec, local] of attempts) {
    const out = await fetchOne(dir, refspec);
    const commit = out.ok ? await commitOf(dir, local) : undefined;
    if (commit !== undefined) return { commit };
    error = firstLine(out) || error;
  }
  return { error: error.replace(/^fatal: /, '') };
}

/** The commit tag `name` names on origin (peeled), undefined when origin has no such tag or cannot be reached. */
export async function remoteTag(dir: string, name: string): Promise<string | undefined> {
  if (!(await hasRemote(dir))) return undefined;
  const out = await git(dir, ['ls-remote', '--tags', REMOTE, `refs/tags/${name}`, `refs/tags/${name}^{}`]);
  if (!out.ok) return undefined;
  const lines = out.stdout.trim().split('\n').filter(Boolean);
  const peeled = lines.find((line) => line.endsWith('^{}')) ?? lines[0];
  return peeled?.split('\t')[0];
}

/** Makes sure `commit` is in the clone (fetched from origin when missing). */
export async function ensureCommit(dir: string, commit: string): Promise<boolean> {
  if ((await commitOf(dir, commit)) !== undefined) return true;
  return (await fetchOne(dir, commit)).ok && (await commitOf(dir, commit)) !== undefined;
}
