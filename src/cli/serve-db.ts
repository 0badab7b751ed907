/**
 * Where `serve` and its admin commands find their database: `--db`, `--db-file`
 * (a file holding the path or URL), SITESYNC_SERVE_DB, else ./sitesync.db. A
 * PostgreSQL password belongs in PGPASSWORD, ~/.pgpass, the file or the
 * variable: every local user can read a command line (`ps`), so a password
 * given in one is used but warned about.
 */
import { readFileSync } from 'node:fs';
import { SitesyncError } from '../model/errors.js';
import { ServerSetupError } from '../server/setup-error.js';
import type { Io } from './io.js';

export const DEFAULT_DB = './sitesync.db';

const URL_PASSWORD = /^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i;
const QUERY_PASSWORD = /([?&]password=)[^&]*/i;

/** The database as it may be shown: a postgres:// URL without its password. */
export function shownDb(db: string): string {
  return db.replace(URL_PASSWORD, '$1:***@').replace(QUERY_PASSWORD, '$1***');
}

/** Warns (never showing it) when a database URL given on the command line holds a password. */
export function warnIfPasswordInArgv(url: string, option: string, io: Io): void {
  if (shownDb(url) === url) return;
  const elsewhere = option === '--db' ? ', or the whole URL in --db-file or SITESYNC_SERVE_DB' : '';
  io.stderr.write(
    `warning: ${option} holds the database password, which \`ps\` shows to every local user: ` +
      `give the URL without it and the password in PGPASSWORD or ~/.pgpass${elsewhere}\n`,
  );
}

function readDbFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SitesyncError('usage', `--db-file ${path}: cannot read it (${(error as { code?: string }).code})`);
  }
  const db = text.split('\n').find((line) => line.trim() !== '');
  if (db === undefined)
    throw new SitesyncError('usage', `--db-file ${path} is empty: write the database path or URL in it`);
  return db.trim();
}

export function serveDb(choice: { db?: string; dbFile?: string }, io: Io): string {
  if (choice.db !== undefined && choice.dbFile !== undefined) {
    throw new SitesyncError('usage', '--db and --db-file both name the database: give one');
  }
  if (choice.dbFile !== undefined) return readDbFile(choice.dbFile);
  if (choice.db === undefined) return io.env.SITESYNC_SERVE_DB ?? DEFAULT_DB;
  warnIfPasswordInArgv(choice.db, '--db', io);
  return choice.db;
}

/** A server error that is the user's (short key, missing directory) → one readable line; others pass. */
export function throwIfSetupError(error: unknown): void {
  if (error instanceof ServerSetupError) throw new SitesyncError('usage', error.message);
}
