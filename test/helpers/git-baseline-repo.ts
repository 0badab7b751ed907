/**
 * The baseline tests' old name for `gitRepo` (git-repo.ts): kept only until
 * test/cli/targets-baseline.test.ts imports git-repo.ts, then deleted.
 */
export { type GitRepo as GitBaselineRepo, gitRepo as gitBaselineRepo } from './git-repo.js';
