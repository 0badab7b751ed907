/**
 * Whether a path holds a sitesync database, checked read-only before anything
 * is written beside it: a server, an accounts command or a backup pointed at
 * the wrong file (`--db /etc/passwd`, another program's SQLite file) must stop
 * with one line, having created nothing (no `<db>.secret`, no -wal/-shm) and
 * changed nothing.
 */
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ServerSetupError } from '../../setup-error.js';

/** The tables every sitesync schema version has. */
const SITESYNC_TABLES = ['accounts', 'api_keys', 'websites'];

/** Throws ServerSetupError unless `path` is missing, empty (a new database) or a sitesync database. */
export function checkSitesyncFile(path: string): void {
  if (path === ':memory:' || !existsSync(path)) return;
  const refuse = (why: string) => new ServerSetupError(`${path} is not a sitesync database (${why})`);
  const stat = statSync(path);
  if (!stat.isFile()) throw refuse('not a regular file');
  if (stat.size === 0) return;
  let tables: string[];
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    throw refuse((error as Error).message);
  } finally {
    db?.close();
  }
  // No table at all: an SQLite file just created, which the schema fills in.
  if (tables.length > 0 && !SITESYNC_TABLES.every((table) => tables.includes(table))) {
    throw refuse(`an SQLite database without the ${SITESYNC_TABLES.join(', ')} tables`);
  }
}
