import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run (`npm run test:mutation`, scripts/mutation.mjs, stryker.config.mjs) uses,
 * per part (SITESYNC_MUTATION_PART, default `core`): the suites of the layers that own the mutated
 * code, on SQLite only. Stryker runs only the tests that cover a mutant, so a list bounds what it
 * loads (and the dry run), not what each mutant runs. Left out everywhere: tests whose work happens in
 * child processes (they cannot see a mutant), and the seeded fault mixes (stalls that must outlast a
 * 2 s client timeout, which a loaded machine fails without any mutant; deterministic tests of each
 * layer cover the same code).
 */
const PARTS: Record<string, { include: string[]; exclude?: string[]; testTimeout?: number }> = {
  // src/plan, src/apply, src/api/listing.ts, src/model/domain.ts and secret.ts.
  core: {
    include: ['test/plan/**/*.test.ts', 'test/apply/**/*.test.ts', 'test/api/**/*.test.ts', 'test/model/**/*.test.ts'],
    exclude: ['test/api/faults.test.ts', 'test/apply/faults.test.ts'],
  },
  // src/engine's decisions: its own tests, the library in-process, the CLI's files that apply, gate,
  // baseline, pin origins, judge policies and match --only and --allow-delete across targets
  // (in-process), and the baselines in git clones as CI makes them. The rest of test/cli (output,
  // export, attribution, history…) tests what the engine reports, not what it decides: left out, the
  // score is a lower bound. About two hours here (docs/testing.md).
  engine: {
    include: [
      'test/engine/**/*.test.ts',
      'test/library/frozen-plan.test.ts',
      'test/library/library.test.ts',
      'test/e2e/shallow-clones.test.ts',
      ...[
        'apply-safety',
        'apply-saved-plan',
        'apply-secrets',
        'apply',
        'baseline',
        'targets-baseline',
        'origin-pinning',
        'policies',
        'targets',
        'targets-coverage',
        'outside-root',
      ].map((name) => `test/cli/${name}.test.ts`),
    ],
  },
  // src/watch: watch in-process on a manual clock (the SIGKILL trials run the built CLI; PostgreSQL's
  // tests need the cluster of the "postgres" vitest project). A mutant of the loop that stops the
  // virtual clock hangs the test waiting for a cycle: 30 s fails it, where the longest takes 8 s loaded.
  watch: {
    include: ['test/watch/**/*.test.ts'],
    exclude: ['test/watch/watch-kill.test.ts', 'test/watch/postgres-*.test.ts'],
    testTimeout: 30_000,
  },
  // src/server/http/auth.ts and store/throttle.ts: the gate and both throttles over HTTP, the in-memory throttle alone.
  auth: {
    include: [
      'test/server/auth-errors.test.ts',
      'test/server/auth-bearer.test.ts',
      'test/server/auth-throttle.test.ts',
      'test/server/throttle.test.ts',
      'test/server/keys.test.ts',
      'test/server/path-spelling.test.ts',
      'test/server/openapi.test.ts',
    ],
  },
};

const named = PARTS[process.env.SITESYNC_MUTATION_PART ?? 'core'];
if (named === undefined) throw new Error(`SITESYNC_MUTATION_PART: no such part (${Object.keys(PARTS).join(', ')})`);
// Iterating on one file's survivors: SITESYNC_MUTATION_TESTS=glob,glob runs only those tests (a lower bound of the score).
const only = process.env.SITESYNC_MUTATION_TESTS?.split(',').filter(Boolean);
const part = only === undefined || only.length === 0 ? named : { ...named, include: only, exclude: [] };

export default defineConfig({
  test: {
    // A mutation run shares a loaded machine: a CLI test of many git commands can take a minute there.
    testTimeout: part.testTimeout ?? 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    include: part.include,
    exclude: part.exclude ?? [],
  },
});
