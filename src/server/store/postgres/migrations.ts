/**
 * Schema versions of the PostgreSQL database, kept in `sitesync_schema`. All
 * migrations run at start under a session advisory lock, so replicas starting
 * together do not race: the second waits, then finds the schema current. Each
 * migration commits with its version. A database newer than this build is
 * refused rather than guessed at.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { COUNTERS_MIGRATION } from './counters.js';
import { INSERT_WITHIN_LIMIT_FUNCTION } from './insert-website.js';
import { PG_SCHEMA } from './schema.js';

interface Migration {
  version: number;
  description: string;
  up(client: pg.PoolClient): Promise<void>;
}

/** In order; never edit a released one, add the next. */
export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, api_keys, websites, website count triggers, search and favourite indexes, server secret',
    async up(client) {
      await client.query(PG_SCHEMA);
      await client.query('INSERT INTO server_secret (id, secret) VALUES (1, $1)', [randomBytes(32)]);
    },
  },
  {
    version: 2,
    description: 'throttle windows shared by replicas (pg-throttle.ts)',
    async up(client) {
      // UNLOGGED: counts are not worth a WAL write per request; a crash empties the table,
      // which forgets the current windows, as a restart does on SQLite.
      await client.query(`CREATE UNLOGGED TABLE throttle_windows (
        scope text NOT NULL,
        key text NOT NULL,
        window_start bigint NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (scope, key)
      )`);
    },
  },
  {
    version: 3,
    description: 'per-account insert/delete counters for the page anchors (pg-deep-pages.ts)',
    async up(client) {
      // bigint: migrate-data starts them at random values (see there).
      await client.query(`ALTER TABLE accounts ADD COLUMN website_version bigint NOT NULL DEFAULT 0,
        ADD COLUMN website_deletes bigint NOT NULL DEFAULT 0`);
      await client.query(`CREATE OR REPLACE FUNCTION websites_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            UPDATE accounts SET website_count = website_count + 1, website_version = website_version + 1
              WHERE id = NEW.account_id;
          ELSE
            UPDATE accounts SET website_count = website_count - 1, website_version = website_version + 1,
              website_deletes = website_deletes + 1 WHERE id = OLD.account_id;
          END IF;
          RETURN NULL;
        END $$`);
    },
  },
  {
    version: 4,
    description: "website counters in slots, so one account's creates do not queue on its row (counters.ts)",
    async up(client) {
      await client.query(COUNTERS_MIGRATION);
      await client.query(INSERT_WITHIN_LIMIT_FUNCTION);
    },
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;

/** Advisory lock keys shared by every sitesync ("sitesync" in ASCII, and the next number). */
const MIGRATION_LOCK = 0x7369746573796e63n;
export const PROVISIONING_LOCK = MIGRATION_LOCK + 1n;

export class PgSchemaTooNewError extends Error {
  constructor(found: number) {
    super(
      `the database has schema version ${found}, newer than this sitesync (${PG_SCHEMA_VERSION}): upgrade sitesync`,
    );
    this.name = 'PgSchemaTooNewError';
  }
}

async function currentVersion(client: pg.PoolClient): Promise<number> {
  await client.query('CREATE TABLE IF NOT EXISTS sitesync_schema (version integer NOT NULL)');
  const { rows } = await client.query<{ version: number }>('SELECT max(version) AS version FROM sitesync_schema');
  return rows[0]?.version ?? 0;
}

/** Brings the database to PG_SCHEMA_VERSION; returns the version it had before. */
export async function migratePostgres(client: pg.PoolClient): Promise<number> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    const before = await currentVersion(client);
    if (before > PG_SCHEMA_VERSION) throw new PgSchemaTooNewError(before);
    for (const migration of PG_MIGRATIONS) {
      if (migration.version <= before) continue;
      await client.query('BEGIN');
      try {
        await migration.up(client);
        await client.query('INSERT INTO sitesync_schema (version) VALUES ($1)', [migration.version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return before;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
}
