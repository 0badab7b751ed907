/**
 * A consistent copy of a live database: SQLite's online backup API reads one
 * snapshot page by page (a plain file copy misses whatever still sits in the
 * WAL), so servers keep serving meanwhile. The server secret is copied beside
 * the copy: without it, no key of the copy would be accepted.
 */
import { chmodSync, copyFileSync, existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ServerSetupError } from '../setup-error.js';
import { secretPath } from '../store/server-secret.js';
import { checkSitesyncFile } from '../store/sqlite/identify.js';

export interface BackupResult {
  pages: number;
  secret: string | undefined;
}

export async function backupDatabase(source: string, destination: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new ServerSetupError(`no database at ${source}`);
  checkSitesyncFile(source);
  for (const path of [destination, secretPath(destination)]) {
    if (existsSync(path)) throw new ServerSetupError(`${path} already exists: choose another --out or remove it`);
  }
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await db.backup(destination);
    chmodSync(destination, 0o600);
    const secret = existsSync(secretPath(source)) ? secretPath(destination) : undefined;
    if (secret) {
      copyFileSync(secretPath(source), secret);
      chmodSync(secret, 0o600);
    }
    return { pages: totalPages, secret };
  } finally {
    db.close();
  }
}
