// `sitesync serve backup`: a consistent copy while the server runs (a plain file
// copy of a live WAL database has no tables), and the documented restore: put the
// copy and its secret in place, start the server on it.
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/server/index.js';
import { request } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const KEY = 'backup-test-key-0123456789';

const tables = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'websites'").all().length;
  } finally {
    db.close();
  }
};

describe('sitesync serve backup', () => {
  const tempDir = useTempDir('backup');
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = tempDir();
    db = join(dir, 'live.db');
  });

  it('copies a running database consistently, and the copy restores with its keys and websites', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    const out = join(dir, 'backup.db');
    try {
      for (const domain of ['one.example', 'two.example', 'three.example']) {
        const created = await request(server.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain } });
        expect(created.status).toBe(201);
      }
      // The problem the command solves: the live data is in the WAL, so copying the file alone loses it.
      copyFileSync(db, join(dir, 'plain-copy.db'));
      expect(tables(join(dir, 'plain-copy.db'))).toBe(0);

      const io = captureIo();
      expect(await main(['serve', 'backup', '--db', db, '--out', out], io)).toBe(0);
      expect(io.err()).toMatch(
        new RegExp(`^backed up ${db} \\(\\d+ pages\\) to ${out} and its key secret to ${out}.secret\\n$`),
      );
      // The server keeps serving during and after the backup.
      expect((await request(server.url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(statSync(`${out}.secret`).mode & 0o777).toBe(0o600);

    // Restore (docs/server.md): copy the backup and its secret to the new database path, start on it.
    const restored = join(dir, 'restored.db');
    copyFileSync(out, restored);
    copyFileSync(`${out}.secret`, `${restored}.secret`);
    const again = await startServer({ port: 0, db: restored, keys: [KEY], throttlePerMinute: 0 });
    try {
      const listed = await request(again.url, 'GET', '/api/v1/websites?sort=asc', { key: KEY });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((site: { domain: string }) => site.domain)).toEqual([
        'one.example',
        'two.example',
        'three.example',
      ]);
    } finally {
      await again.close();
    }
  });

  it.each([
    [['--db', '<dir>/none.db', '--out', '<dir>/b.db'], 'error: no database at <dir>/none.db\n'],
    [['--db', '<db>', '--out', '<db>'], 'error: <db> already exists: choose another --out or remove it\n'],
    [['--db', ':memory:', '--out', '<dir>/b.db'], 'error: backup needs a database file (--db <path>)\n'],
  ])('refuses %j in one line', async (args, message) => {
    const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    await server.close();
    const fill = (text: string) => text.replaceAll('<dir>', dir).replaceAll('<db>', db);
    const io = captureIo();
    expect(await main(['serve', 'backup', ...args.map(fill)], io)).toBe(1);
    expect(io.err()).toBe(fill(message));
  });
});
