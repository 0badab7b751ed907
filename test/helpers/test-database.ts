/**
 * A fresh database per test of a `describe`, of this run's backend: an SQLite
 * file in a temporary directory, or a new database on the PostgreSQL test
 * cluster, already migrated (dropped after the test). Tests that start servers or run `serve`
 * commands on a `--db` use it, so they run on both backends.
 */
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { createTestDatabase, type TestDatabase } from './postgres-database.js';
import { TEST_BACKEND } from './server.js';
import { useTempDir } from './temp.js';

export interface TestDatabaseHandle {
  /** The `--db` value: a file path or a postgres:// URL. */
  db: string;
  /** The temporary directory of the test (holds the SQLite file). */
  dir: string;
}

export function useTestDatabase(name: string): () => TestDatabaseHandle {
  const tempDir = useTempDir(name);
  let current: TestDatabaseHandle | undefined;
  let postgres: TestDatabase | undefined;
  beforeEach(async () => {
    const dir = tempDir();
    postgres = TEST_BACKEND === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
    current = { dir, db: postgres?.url ?? join(dir, `${name}.db`) };
  });
  afterEach(async () => {
    await postgres?.drop();
    postgres = undefined;
  });
  return () => {
    if (!current) throw new Error('useTestDatabase: call the getter inside a test');
    return current;
  };
}
