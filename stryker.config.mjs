// Mutation testing of the code that decides deletes and keeps secrets: `npm run test:mutation`.
// Scores and the mutants judged equivalent are in docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  mutate: ['src/plan/**/*.ts', 'src/apply/**/*.ts', 'src/api/listing.ts', 'src/model/domain.ts', 'src/model/secret.ts'],
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 95, low: 90, break: 90 },
  concurrency: 2,
  // A loaded 2-core machine slows a mutant's tests several-fold: a timeout must mean an endless loop, not load.
  timeoutMS: 10_000,
  timeoutFactor: 2.5,
  // Static mutants (module-level constants, evaluated once at import) can only be tested by re-running every
  // test for each: ignored (reported as such, not scored).
  ignoreStatic: true,
  tempDirName: '.stryker-tmp',
};
