import { defineConfig } from 'vitest/config';

/**
 * The tests a mutation run (`npm run test:mutation`, stryker.config.mjs) uses: each layer's own
 * suite for the code that decides deletes and keeps secrets, on SQLite only. Stryker runs only the
 * tests that cover a mutant, so this list bounds what it loads, not what each mutant runs.
 * Left out: the seeded fault mixes (stalls that must outlast a 2 s client timeout), which a loaded
 * machine fails without any mutant; the deterministic tests of each layer cover the same code.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    include: ['test/plan/**/*.test.ts', 'test/apply/**/*.test.ts', 'test/api/**/*.test.ts', 'test/model/**/*.test.ts'],
    exclude: ['test/api/faults.test.ts', 'test/apply/faults.test.ts'],
  },
});
