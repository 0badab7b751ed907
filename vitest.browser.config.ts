import { defineConfig } from 'vitest/config';

/**
 * The browser suite (`npm run test:browser`): the status page of `sitesync watch` in Debian's
 * Chromium (/usr/bin/chromium, driven by playwright-core; nothing is downloaded). Apart from
 * `npm test`, whose machine needs only Node.js and PostgreSQL 15. The global setup checks for
 * Chromium first and empties artifacts/browser/ (screenshots; gitignored).
 */
export default defineConfig({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    // Chromium and a watch child process start in a hook; on a loaded 2-core machine, slowly.
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    globalSetup: ['test/browser/prerequisites.ts', 'test/helpers/temp-leaks.ts'],
  },
});
