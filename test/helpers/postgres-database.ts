/**
 * A database of its own for one test file (or test) on the run's throwaway
 * cluster (postgres.ts), dropped by `drop()`: empty, or (`migrated`) a copy of
 * the run's migrated template, for tests that only need a server on it. The
 * copies share the template's server secret (the key pepper): each holds its
 * own keys, so no test can tell.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const base = inject('postgresUrl');
  if (!base) throw new Error('no PostgreSQL test cluster: run this file in the "postgres" vitest project');
  const name = `sitesync_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    const template = options.migrated ? ` TEMPLATE ${inject('postgresMigratedTemplate')}` : '';
    await admin.query(`CREATE DATABASE ${name}${template}`);
  } finally {
    await admin.end();
  }
  return {
    url: `${base}/${name}`,
    async drop() {
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
