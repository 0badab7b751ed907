import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Temporary directories: removed after each test or file, and a run that leaves one behind fails.
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    globalSetup: ['test/helpers/temp-leaks.ts'],
  },
});
