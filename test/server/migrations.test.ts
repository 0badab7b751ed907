// Schema versions: a database from before versioning (user_version 0, bare
// sha256 key digests) is migrated at start with its accounts, keys and websites
// intact; a database from a newer sitesync is refused in one line.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/server/index.js';
import { SCHEMA_VERSION } from '../../src/server/store/sqlite/migrations.js';
import { SCHEMA } from '../../src/server/store/sqlite/schema.js';
import { request } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const PROVISIONED = 'old-provisioned-key-0123456789';
const CREATED = 'ss_old-created-key-0123456789abcdefghijklmnop';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A database as sitesync wrote it before schema versions: today's SCHEMA text, user_version 0. */
function writeVersion0(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  const now = '2026-01-01T00:00:00.000000Z';
  const account = db.prepare('INSERT INTO accounts (name, website_limit, created_at) VALUES (?, ?, ?) RETURNING id');
  const key = db.prepare('INSERT INTO api_keys (account_id, key_hash, created_at) VALUES (?, ?, ?)');
  const provisioned = account.pluck().get(`key-${sha256(PROVISIONED).slice(0, 12)}`, null, now) as number;
  key.run(provisioned, sha256(PROVISIONED), now);
  const alice = account.pluck().get('alice', 5, now) as number;
  key.run(alice, sha256(CREATED), now);
  db.prepare(
    `INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, created_at, updated_at)
     VALUES (?, 'kept.example', 1, 0, 1, ?, ?)`,
  ).run(alice, now, now);
  db.close();
}

describe('schema migrations', () => {
  const tempDir = useTempDir('migrations');
  let db: string;
  beforeEach(() => {
    db = join(tempDir(), 'old.db');
  });

  it('migrates a version-0 file at start: keys still work, websites and limits kept, sources told apart', async () => {
    writeVersion0(db);
    const server = await startServer({ port: 0, db, keys: [PROVISIONED], throttlePerMinute: 0 });
    try {
      const listed = await request(server.url, 'GET', '/api/v1/websites', { key: CREATED });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((site: { domain: string }) => site.domain)).toEqual(['kept.example']);
      expect((await request(server.url, 'GET', '/api/v1/websites', { key: PROVISIONED })).status).toBe(200);
      const search = await request(server.url, 'GET', '/api/v1/websites?search=kept', { key: CREATED });
      expect(search.body.meta.total).toBe(1);
    } finally {
      await server.close();
    }
    const check = new Database(db, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const keys = check.prepare('SELECT source, key_hash AS keyHash FROM api_keys ORDER BY id').all() as {
      source: string;
      keyHash: string;
    }[];
    check.close();
    expect(keys.map((key) => key.source)).toEqual(['provisioned', 'created']);
    // The bare digests are gone: only peppered ones remain.
    expect(keys.map((key) => key.keyHash)).not.toContain(sha256(CREATED));

    const io = captureIo();
    expect(await main(['serve', 'accounts', 'list', '--db', db], io)).toBe(0);
    expect(io.out()).toMatch(/\n2 +alice +1 +5 +on +user +2 +\? +2026-01-01T00:00:00.000000Z +created\n/);
  });

  it('refuses a database from a newer sitesync in one line, leaving it untouched', async () => {
    writeVersion0(db);
    const newer = new Database(db);
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    const io = captureIo({ env: { SITESYNC_SERVE_KEYS: PROVISIONED } });
    expect(await main(['serve', '--port', '0', '--db', db], io)).toBe(1);
    expect(io.err()).toBe(
      `error: ${db}: the database has schema version ${SCHEMA_VERSION + 1}, newer than this sitesync (${SCHEMA_VERSION}): upgrade sitesync\n`,
    );
    const check = new Database(db, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    check.close();
  });
});
