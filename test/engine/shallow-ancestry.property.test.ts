// Property (issue 38, item 1): over random histories (branches, merges,
// out-of-order commit dates, a tag anywhere), a depth-1, tagless checkout as
// hosted runners make it resolves exactly the baseline a full clone resolves,
// and refuses exactly when the full clone refuses (a checkout behind the tag).
// The baseline's commit is all that git contributes to a plan's classes (the
// classifier is a pure function of the configuration there: test/plan), so the
// same commit, the same `insteadOf` and the same refusal mean the same plan.
// Each run: one `git fast-import` of the history, two checkouts, the engine.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type BaselineFlags, resolveBaseline } from '../../src/engine/baseline.js';
import { SitesyncError } from '../../src/model/errors.js';
import { tempDir } from '../helpers/temp.js';

const TAG = 'sitesync-applied';
const FILES = ['websites.yaml'];
const NOON = Date.UTC(2026, 0, 1, 12) / 1000;

const git = (dir: string, args: string[], input?: string): string =>
  execFileSync('git', args, {
    cwd: dir,
    input,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: ['pipe', 'pipe', 'pipe'],
  }).trim();

/**
 * Commit i has a first parent before it (mostly the one just before: long
 * chains, as a busy main branch), maybe a second (a merge), and a date
 * anywhere in three hours, whatever its parents' dates.
 */
interface History {
  commits: { parents: number[]; minutes: number }[];
  branches: number[];
  tag: number | undefined;
  head: number;
  baseline: 'default' | 'tag' | number;
}

const historyArb = fc.integer({ min: 2, max: 28 }).chain((size) => {
  const commit = (index: number) =>
    fc.record({
      parents: fc
        .tuple(fc.oneof(fc.constant(index - 1), fc.nat(index - 1)), fc.option(fc.nat(index - 1), { nil: undefined }))
        .map(([first, second]) => (second === undefined || second === first ? [first] : [first, second])),
      minutes: fc.integer({ min: -90, max: 90 }),
    });
  const commitIndex = fc.nat(size - 1);
  return fc.record({
    commits: fc.tuple(
      fc.constant({ parents: [] as number[], minutes: 0 }),
      ...Array.from({ length: size - 1 }, (_, index) => commit(index + 1)),
    ),
    branches: fc.array(commitIndex, { minLength: 1, maxLength: 3 }),
    tag: fc.option(commitIndex, { nil: undefined }),
    head: commitIndex,
    baseline: fc.oneof(fc.constant('default' as const), fc.constant('tag' as const), fc.nat(2)),
  });
});

/**
 * The history as a bare origin (branches b0…, the tag, and the pull request's
 * test-merge ref at `head`); the test-merge commit's id.
 */
function originOf(history: History): { origin: string; head: string } {
  const origin = tempDir('ancestry-origin');
  git(origin, ['init', '--quiet', '--bare', '--initial-branch=b0']);
  const stream = history.commits.map(({ parents, minutes }, index) => {
    const message = `c${index}\n`;
    const file = `version: 1\nwebsites: []\n# c${index}\n`;
    const [first, second] = parents.map((parent) => `:${parent + 1}`);
    return [
      'commit refs/heads/b0',
      `mark :${index + 1}`,
      `committer t <t@t.invalid> ${NOON + minutes * 60} +0000`,
      `data ${message.length}\n${message}`,
      ...(first === undefined ? [] : [`from ${first}`]),
      ...(second === undefined ? [] : [`merge ${second}`]),
      `M 644 inline websites.yaml\ndata ${file.length}\n${file}`,
    ].join('\n');
  });
  const refs = [
    ...history.branches.map((commit, index) => [`refs/heads/b${index}`, commit] as const),
    ['refs/pull/1/merge', history.head] as const,
    ...(history.tag === undefined ? [] : [[`refs/tags/${TAG}`, history.tag] as const]),
  ].map(([ref, commit]) => `reset ${ref}\nfrom :${commit + 1}\n`);
  const marks = join(origin, 'marks');
  git(origin, ['fast-import', '--quiet', `--export-marks=${marks}`], `${stream.join('\n')}\n${refs.join('\n')}\n`);
  const head = readFileSync(marks, 'utf8').match(new RegExp(`^:${history.head + 1} ([0-9a-f]{40})$`, 'm'))?.[1];
  if (head === undefined) throw new Error('fast-import exported no mark for the head');
  return { origin, head };
}

/** How a hosted runner checks out a pull request: the test-merge commit, depth 1, no tags. */
function runnerCheckout(origin: string, head: string): string {
  const dir = tempDir('ancestry-shallow');
  git(dir, ['init', '--quiet']);
  git(dir, ['remote', 'add', 'origin', `file://${origin}`]);
  git(dir, ['fetch', '--quiet', '--no-tags', '--depth=1', 'origin', `+${head}:refs/remotes/pull/1/merge`]);
  git(dir, ['checkout', '--quiet', '--detach', head]);
  return dir;
}

function fullCheckout(origin: string, head: string): string {
  const dir = tempDir('ancestry-full');
  // A local clone shares origin's objects (the test-merge commit included): no transfer, as fetch-depth: 0 gets.
  git(dir, ['clone', '--quiet', '--no-checkout', origin, '.']);
  git(dir, ['checkout', '--quiet', '--detach', head]);
  return dir;
}

/** The baseline the engine resolves in a checkout, or its refusal. */
async function outcome(dir: string, flags: BaselineFlags) {
  try {
    const at = await resolveBaseline(FILES, flags, { env: {}, cwd: dir });
    return at && { ...at, ref: { ...at.ref, fetchedFrom: undefined } };
  } catch (error) {
    if (!(error instanceof SitesyncError)) throw error;
    // A shallow clone read the tag from origin; a full one has it: the same refusal.
    return { refused: error.message.replace(', as on origin', '').replaceAll(dir, 'CHECKOUT') };
  }
}

describe('baselines from a depth-1 checkout', () => {
  test.prop([historyArb], { seed: 38, numRuns: 12 })(
    'a depth-1, tagless checkout resolves what a full clone resolves, refusals included',
    async (history) => {
      const { origin, head } = originOf(history);
      const branch = typeof history.baseline === 'number' ? history.baseline % history.branches.length : 0;
      const flags: BaselineFlags =
        history.baseline === 'default' ? {} : { baseline: history.baseline === 'tag' ? TAG : `origin/b${branch}` };
      const full = fullCheckout(origin, head);
      const expected = await outcome(full, flags);
      const shallow = runnerCheckout(origin, head);
      expect(await outcome(shallow, flags)).toEqual(expected);
    },
    // About 2 s of CPU a run, in git processes: on a busy machine the wall time is several times that.
    300_000,
  );
});
