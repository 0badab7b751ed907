import { defineConfig } from 'vitest/config';

/**
 * `npm test` and plain `npx vitest run`: everything a machine with Node.js, the npm packages and
 * Debian's PostgreSQL 15 can run. Tests that need more (HAProxy) are the deployment suite,
 * test/deployment/ with vitest.deployment.config.ts (`npm run test:deployment`).
 */

/** Server contract tests that run on PostgreSQL too (startTestServer picks the backend). */
const POSTGRES_CONTRACT = [
  'test/server/websites-crud.test.ts',
  'test/server/list.test.ts',
  'test/server/validation.test.ts',
  'test/server/auth-errors.test.ts',
  'test/server/search.test.ts',
  'test/server/input-edges.test.ts',
  'test/server/hostile-bodies.test.ts',
  'test/server/path-spelling.test.ts',
  'test/server/odd-methods.test.ts',
  'test/server/operator.test.ts',
  'test/server/slow-clients.test.ts',
  'test/server/quirks-v31.test.ts',
  'test/server/quirks-v31-round4.test.ts',
  'test/server/strict-mode-pins.test.ts',
  'test/server/keys.test.ts',
  'test/server/request-log.test.ts',
  'test/server/storage.test.ts',
  'test/server/serve-command.test.ts',
  'test/server/concurrency.test.ts',
  'test/server/metrics.test.ts',
  'test/server/openapi.test.ts',
  'test/server/postgres-*.test.ts',
  // The server as a child process: SIGTERM drains in-flight requests, then the pool closes.
  'test/e2e/serve-shutdown.test.ts',
  // Client and apply tests whose out-of-band writes are awaited (no reliance on SQLite answering synchronously).
  'test/api/listing.test.ts',
  'test/apply/apply-plan.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default on 2 cores is one worker (cores - 1); most files wait on servers, child
    // processes and PostgreSQL part of their time, so two keep both cores busy.
    maxWorkers: 2,
    // A worker keeps its modules from one file to the next (the files set no globals; each starts
    // its own servers and temp directories): importing the sources once per worker, not per file.
    isolate: false,
    // Temporary directories: removed after each test or file, and a run that leaves one behind fails.
    setupFiles: ['test/helpers/temp-cleanup.ts', 'test/helpers/file-state.ts'],
    // The run's own temp directory (a leftover fails the run) and the directory of its one CLI build.
    globalSetup: ['test/helpers/temp-leaks.ts', 'test/helpers/cli-build.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/server/postgres-*.test.ts', 'test/deployment/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: POSTGRES_CONTRACT,
          // A throwaway PostgreSQL cluster for the run (fails the run when it cannot start).
          globalSetup: ['test/helpers/postgres.ts'],
          env: { SITESYNC_TEST_BACKEND: 'postgres' },
        },
      },
    ],
  },
});
