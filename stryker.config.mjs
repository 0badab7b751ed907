// Mutation testing of the code that decides deletes, keeps secrets, gates applies and heals, and
// guards the service's API: `npm run test:mutation` (scripts/mutation.mjs) runs each part in turn;
// one part alone: `SITESYNC_MUTATION_PART=engine npx stryker run`. The tests of each part are in
// vitest.mutation.config.ts. Scores and the mutants judged equivalent are in docs/testing.md.

/** The files each part mutates. */
const MUTATE = {
  core: ['src/plan/**/*.ts', 'src/apply/**/*.ts', 'src/api/listing.ts', 'src/model/domain.ts', 'src/model/secret.ts'],
  // The engine's and watch's decisions (docs/testing.md says which files are left out, and why).
  engine: [
    'src/engine/apply-target.ts',
    'src/engine/apply-targets.ts',
    'src/engine/mark-applied.ts',
    'src/engine/baseline.ts',
    'src/engine/baseline-resolve.ts',
    'src/engine/git-ancestry.ts',
    'src/engine/write-only-since.ts',
    'src/engine/website-allowance.ts',
    'src/engine/policies.ts',
    'src/engine/connect.ts',
  ],
  watch: [
    'src/watch/watcher.ts',
    'src/watch/engine-port.ts',
    'src/watch/classify.ts',
    'src/watch/heal-policy.ts',
    'src/watch/window.ts',
    'src/watch/alerts.ts',
    'src/watch/check-gate.ts',
    'src/watch/target-check.ts',
    'src/watch/coordination/assignment.ts',
  ],
  auth: ['src/server/http/auth.ts', 'src/server/store/throttle.ts'],
};

const part = process.env.SITESYNC_MUTATION_PART ?? 'core';
if (!(part in MUTATE)) throw new Error(`SITESYNC_MUTATION_PART: no such part (${Object.keys(MUTATE).join(', ')})`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  checkers: ['typescript'],
  // The checker type-checks src only: with the tests as well each check took nearly twice as long.
  // A mutant that breaks only a test's types is run, and judged by the tests.
  tsconfigFile: 'tsconfig.mutation.json',
  mutate: MUTATE[part],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${part}.json`,
  // event-recorder writes each mutant's result as it is known: a run stopped before its end is still read
  // (scripts/mutation-survivors.mjs); the html and json reports are written only at the end.
  reporters: ['clear-text', 'progress', 'html', 'json', 'event-recorder'],
  eventReporter: { baseDir: `reports/mutation/${part}/events` },
  htmlReporter: { fileName: `reports/mutation/${part}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${part}/mutation.json` },
  thresholds: { high: 95, low: 90, break: 90 },
  concurrency: 2,
  // A loaded 2-core machine slows a mutant's tests several-fold: a timeout must mean an endless loop, not load.
  timeoutMS: 10_000,
  timeoutFactor: 2.5,
  // The engine part's dry run (the CLI suite in-process, with per-test coverage) outlasts the default 5 minutes there.
  dryRunTimeoutMinutes: 60,
  // Static mutants (module-level constants, evaluated once at import) can only be tested by re-running every
  // test for each: ignored (reported as such, not scored).
  ignoreStatic: true,
  tempDirName: '.stryker-tmp',
};
