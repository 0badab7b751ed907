/**
 * How two commits relate in origin's history, told exactly in a shallow clone
 * (docs/plan-format.md, "Baseline"). A shallow clone's history stops at its
 * boundary commits, so "not an ancestor here" proves nothing while a boundary
 * is reachable: the history is deepened from origin (`git fetch --deepen=N`,
 * N doubling: by commit count, never by date, whose order real histories do
 * not keep) until one commit is found in the other's history or neither
 * history has a boundary left. When origin cannot deepen it (no remote, a
 * commit no ref reaches any more), the answer is a refusal, never a guess.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SitesyncError } from '../model/errors.js';
import { firstLine, git } from './git.js';
import { FETCH, REMOTE } from './git-remote.js';

/** `a` relative to `b`: the same commit, an ancestor of it, a descendant of it, or neither. */
export type Relation = 'same' | 'before' | 'after' | 'diverged';

/** The first deepening: most baselines are a few commits from each other. */
const FIRST_DEEPEN = 16;

export async function relation(dir: string, a: string, b: string): Promise<Relation> {
  if (a === b) return 'same';
  let shallow: string | undefined;
  let before: string | undefined;
  for (let deepen = FIRST_DEEPEN; ; deepen *= 2) {
    const base = (await git(dir, ['merge-base', a, b])).stdout.trim();
    if (base === a) return 'before';
    if (base === b) return 'after';
    shallow ??= await shallowFile(dir);
    const cut = shallow === '' ? '' : await boundaryOf(dir, shallow, a, b);
    if (cut === '') return 'diverged';
    if (cut === before) throw unsure(a, b, `${REMOTE} has no more of their history`);
    const fetched = await git(dir, [...FETCH, `--deepen=${deepen}`, REMOTE, a, b]);
    if (!fetched.ok) throw unsure(a, b, firstLine(fetched).replace(/^fatal: /, ''));
    before = cut;
  }
}

/** The file listing a shallow clone's boundary commits; '' in a full clone. */
async function shallowFile(dir: string): Promise<string> {
  const out = await git(dir, ['rev-parse', '--is-shallow-repository', '--git-path', 'shallow']);
  const [shallow, path] = out.stdout.trim().split('\n');
  return shallow === 'true' && path !== undefined ? resolve(dir, path) : '';
}

/**
 * The boundary commits the history of `a` and `b` reaches (sorted, one a line);
 * '' when that history is whole (the last deepening may make the clone whole).
 */
async function boundaryOf(dir: string, file: string, a: string, b: string): Promise<string> {
  const boundary = await readFile(file, 'utf8').catch(() => '');
  if (boundary === '') return '';
  const history = await git(dir, ['rev-list', a, b]);
  if (!history.ok) throw unsure(a, b, firstLine(history));
  const reached = new Set(history.stdout.split('\n'));
  return boundary
    .split('\n')
    .filter((commit) => commit !== '' && reached.has(commit))
    .sort()
    .join('\n');
}

function unsure(a: string, b: string, reason: string): SitesyncError {
  return new SitesyncError(
    'config',
    `cannot tell whether ${a.slice(0, 12)} and ${b.slice(0, 12)} descend from each other: this clone is shallow and deepening it from ${REMOTE} failed (${reason}); fetch the whole history (git fetch --unshallow ${REMOTE}, or fetch-depth: 0) and run again`,
  );
}
