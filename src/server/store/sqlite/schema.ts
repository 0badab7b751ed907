/**
 * The SQLite schema of the reference server, and the SQL text derived from
 * field names. Column names come only from `COLUMN`, never from requests.
 */

import type { RecordShape } from '../contract.js';
import { COLUMN } from '../record-columns.js';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  website_limit INTEGER,
  api_access INTEGER NOT NULL DEFAULT 1,
  -- Kept by the triggers below, so an unfiltered list and the limit check need no COUNT(*).
  website_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS websites (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  domain TEXT NOT NULL,
  privacy INTEGER,
  password_hash TEXT,
  email INTEGER,
  exclude_bots INTEGER,
  exclude_params TEXT,
  exclude_ips TEXT,
  favorited_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS websites_domain ON websites (domain);
CREATE INDEX IF NOT EXISTS websites_account_id ON websites (account_id, id);
CREATE INDEX IF NOT EXISTS websites_account_domain ON websites (account_id, domain);
CREATE TRIGGER IF NOT EXISTS websites_count_insert AFTER INSERT ON websites BEGIN
  UPDATE accounts SET website_count = website_count + 1 WHERE id = NEW.account_id;
END;
CREATE TRIGGER IF NOT EXISTS websites_count_delete AFTER DELETE ON websites BEGIN
  UPDATE accounts SET website_count = website_count - 1 WHERE id = OLD.account_id;
END;
`;

/** A record shape → an SQL `json_object(...)` giving one record; keys are quoted as SQL strings. */
export function recordJsonSql(shape: RecordShape): string {
  const parts = shape.map(([key, { column, as }]) => {
    const name = COLUMN[column];
    const value =
      as === 'isSet'
        ? `json(iif(${name} IS NULL, 'false', 'true'))`
        : as === 'spacedDateTime'
          ? `replace(${name}, 'T', ' ')`
          : name;
    return `'${key.replace(/'/g, "''")}', ${value}`;
  });
  return `json_object(${parts.join(', ')})`;
}
