/**
 * Vitest global setup of the PostgreSQL project: a throwaway PostgreSQL 15
 * cluster, started once per run as the `postgres` user (it refuses root) in a
 * `sitesync-pg-*` temporary directory, on a free loopback port; stopped and
 * removed afterwards. Test files get a database of their own (postgresDatabase
 * in postgres-database.ts), an empty one or a copy of the database migrated
 * here once (CREATE DATABASE … TEMPLATE is a file copy: far cheaper than
 * running the migrations for every test). When PostgreSQL cannot start the
 * run fails with the reason: the backend is never skipped silently.
 */
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../src/server/store/postgres/migrations.js';
import { startThrowawayCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://postgres@127.0.0.1:PORT — the throwaway cluster's superuser, no password (trust). */
    postgresUrl: string;
    /** A database at the current schema version, with no rows but its server secret: CREATE DATABASE's TEMPLATE. */
    postgresMigratedTemplate: string;
  }
}

const TEMPLATE = 'sitesync_migrated';

async function createMigratedTemplate(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${url}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    const pool = new pg.Pool({ connectionString: `${url}/${TEMPLATE}`, max: 1 });
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
    // Nobody connects to it again: a template with a session open cannot be copied.
    await admin.query(`ALTER DATABASE ${TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await admin.end();
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // fsync off: the tests' cluster is thrown away, durability buys nothing there.
  const cluster = await startThrowawayCluster(['-c fsync=off']);
  try {
    await createMigratedTemplate(cluster.url);
  } catch (error) {
    cluster.stop();
    throw error;
  }
  project.provide('postgresUrl', cluster.url);
  project.provide('postgresMigratedTemplate', TEMPLATE);
  return cluster.stop;
}
