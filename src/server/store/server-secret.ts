/**
 * The server secret that peppers key digests (HMAC), kept beside the database
 * file as `<db>.secret`, mode 0600, created on first start. A stolen database
 * alone then does not let anyone test guessed keys against its digests. The
 * file is written aside and linked into place, so two processes starting at once
 * agree on one secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const SECRET_BYTES = 32;

export function secretPath(dbPath: string): string {
  return `${dbPath}.secret`;
}

/** Reads the secret of a database file, creating it when missing; ':memory:' gets a throwaway one. */
export function loadServerSecret(dbPath: string): Buffer {
  if (dbPath === ':memory:') return randomBytes(SECRET_BYTES);
  const path = secretPath(dbPath);
  try {
    return readSecret(path);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
  }
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, `${randomBytes(SECRET_BYTES).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, path);
  } catch (error) {
    // Another process won the race: use its secret.
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
  return readSecret(path);
}

/** The secret of an existing database file (never creates one). */
export function readServerSecret(dbPath: string): Buffer {
  return readSecret(secretPath(dbPath));
}

function readSecret(path: string): Buffer {
  const secret = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
  if (secret.length < 16) throw new Error(`the server secret ${path} is damaged (too short)`);
  return secret;
}

/** The stored form of a key: HMAC-SHA256 of its sha256 digest with the secret. */
export function pepperWith(secret: Buffer): (keyHash: string) => string {
  return (keyHash) => createHmac('sha256', secret).update(keyHash, 'utf8').digest('hex');
}
