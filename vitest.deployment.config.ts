import { defineConfig } from 'vitest/config';

/**
 * The deployment suite (`npm run test:deployment`): tests that need more than `npm test`'s machine
 * (Node.js, the npm packages, Debian's PostgreSQL 15), today HAProxy in front of replicas. The global
 * setups check the prerequisites first, then start the run's throwaway PostgreSQL cluster.
 */
export default defineConfig({
  test: {
    name: 'deployment',
    include: ['test/deployment/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['test/helpers/temp-cleanup.ts'],
    globalSetup: ['test/deployment/prerequisites.ts', 'test/helpers/temp-leaks.ts', 'test/helpers/postgres.ts'],
    env: { SITESYNC_TEST_BACKEND: 'postgres' },
  },
});
