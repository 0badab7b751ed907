/**
 * Schema versions of the SQLite database, kept in `PRAGMA user_version`. Each
 * migration moves the file one version up; all of them run at start, inside one
 * `BEGIN IMMEDIATE` transaction, so two processes starting on the same new file
 * never race (the second waits, then finds the schema current). A file newer than
 * this build is refused rather than guessed at.
 */
import type Database from 'better-sqlite3';
import { SCHEMA } from './schema.js';

export interface MigrationContext {
  /** HMAC of a key's sha256 digest with the server secret (what api_keys stores). */
  pepper(keyHash: string): string;
}

interface Migration {
  version: number;
  description: string;
  up(db: Database.Database, context: MigrationContext): void;
}

/** In order; never edit a released one, add the next. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    // Files from before versioning have these tables already (user_version 0): IF NOT EXISTS keeps them.
    description: 'accounts, api_keys, websites, per-account website count',
    up: (db) => db.exec(SCHEMA),
  },
  {
    version: 2,
    description: 'key source and prefix; key digests peppered with the server secret',
    up(db, { pepper }) {
      db.exec(`
        ALTER TABLE api_keys ADD COLUMN source TEXT NOT NULL DEFAULT 'created';
        ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
      `);
      // Provisioned accounts were named after their key's digest: that is how to tell them apart.
      db.exec(`UPDATE api_keys SET source = 'provisioned' WHERE account_id IN
        (SELECT a.id FROM accounts a WHERE a.name = 'key-' || substr(api_keys.key_hash, 1, 12))`);
      const rows = db.prepare('SELECT id, key_hash AS keyHash FROM api_keys').all() as {
        id: number;
        keyHash: string;
      }[];
      const update = db.prepare('UPDATE api_keys SET key_hash = ? WHERE id = ?');
      for (const row of rows) update.run(pepper(row.keyHash), row.id);
    },
  },
  {
    version: 3,
    description: 'trigram index for domain search; partial indexes for the favourite filter',
    up: (db) =>
      db.exec(`
        CREATE VIRTUAL TABLE websites_search USING fts5(domain, content='websites', content_rowid='id',
          tokenize='trigram');
        INSERT INTO websites_search (websites_search) VALUES ('rebuild');
        -- Domains never change after insert: inserts and deletes are all the index follows.
        CREATE TRIGGER websites_search_insert AFTER INSERT ON websites BEGIN
          INSERT INTO websites_search (rowid, domain) VALUES (NEW.id, NEW.domain);
        END;
        CREATE TRIGGER websites_search_delete AFTER DELETE ON websites BEGIN
          INSERT INTO websites_search (websites_search, rowid, domain) VALUES ('delete', OLD.id, OLD.domain);
        END;
        CREATE INDEX websites_favorites_id ON websites (account_id, id) WHERE favorited_at IS NOT NULL;
        CREATE INDEX websites_favorites_domain ON websites (account_id, domain) WHERE favorited_at IS NOT NULL;
      `),
  },
  {
    version: 4,
    description: 'per-account insert/delete counters that tell page anchors when they are stale',
    up: (db) =>
      db.exec(`
        ALTER TABLE accounts ADD COLUMN website_version INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE accounts ADD COLUMN website_deletes INTEGER NOT NULL DEFAULT 0;
        DROP TRIGGER websites_count_insert;
        CREATE TRIGGER websites_count_insert AFTER INSERT ON websites BEGIN
          UPDATE accounts SET website_count = website_count + 1, website_version = website_version + 1
          WHERE id = NEW.account_id;
        END;
        DROP TRIGGER websites_count_delete;
        CREATE TRIGGER websites_count_delete AFTER DELETE ON websites BEGIN
          UPDATE accounts SET website_count = website_count - 1, website_version = website_version + 1,
            website_deletes = website_deletes + 1
          WHERE id = OLD.account_id;
        END;
      `),
  },
  {
    version: 5,
    description: 'per-account counter of favourites set or cleared, for the anchors of the favourite filter',
    up: (db) =>
      db.exec(`
        ALTER TABLE accounts ADD COLUMN website_favorites INTEGER NOT NULL DEFAULT 0;
        CREATE TRIGGER websites_favorites AFTER UPDATE OF favorited_at ON websites
        WHEN (OLD.favorited_at IS NULL) <> (NEW.favorited_at IS NULL) BEGIN
          UPDATE accounts SET website_favorites = website_favorites + 1 WHERE id = NEW.account_id;
        END;
      `),
  },
  {
    version: 6,
    description: 'digests of keys revoked by hand or by a rotation, never provisioned again',
    up: (db) =>
      db.exec(`
        CREATE TABLE revoked_keys (
          id INTEGER PRIMARY KEY,
          key_hash TEXT NOT NULL UNIQUE,
          revoked_at TEXT NOT NULL
        );
      `),
  },
  {
    version: 7,
    description: "accounts' admin role (phpAnalytics' role 1), for quirks mode's update with user_id",
    up: (db) => db.exec('ALTER TABLE accounts ADD COLUMN admin INTEGER NOT NULL DEFAULT 0'),
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export class SchemaTooNewError extends Error {
  constructor(found: number) {
    super(`the database has schema version ${found}, newer than this sitesync (${SCHEMA_VERSION}): upgrade sitesync`);
    this.name = 'SchemaTooNewError';
  }
}

/** Brings the database to SCHEMA_VERSION; returns the version it had before. */
export function migrate(db: Database.Database, context: MigrationContext): number {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() === SCHEMA_VERSION) return SCHEMA_VERSION;
  // IMMEDIATE takes the write lock first: a second process waits here (busy_timeout), then re-reads.
  db.exec('BEGIN IMMEDIATE');
  try {
    const before = version();
    if (before > SCHEMA_VERSION) throw new SchemaTooNewError(before);
    for (const migration of MIGRATIONS) {
      if (migration.version <= before) continue;
      migration.up(db, context);
      db.pragma(`user_version = ${migration.version}`);
    }
    db.exec('COMMIT');
    return before;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
