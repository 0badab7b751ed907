/**
 * Vitest global setup of the PostgreSQL project: a throwaway PostgreSQL 15
 * cluster, started once per run as the `postgres` user (it refuses root) in a
 * `sitesync-pg-*` temporary directory, on a free loopback port; stopped and
 * removed afterwards. Test files get a database of their own (postgresDatabase
 * in postgres-database.ts). When PostgreSQL cannot start the run fails with
 * the reason: the backend is never skipped silently.
 */
import type { TestProject } from 'vitest/node';
import { startThrowawayCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** postgres://postgres@127.0.0.1:PORT — the throwaway cluster's superuser, no password (trust). */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // fsync off: the tests' cluster is thrown away, durability buys nothing there.
  const cluster = await startThrowawayCluster(['-c fsync=off']);
  project.provide('postgresUrl', cluster.url);
  return cluster.stop;
}
