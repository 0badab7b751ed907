// Commands pointed at a file that is not a sitesync database (issue 23, item 6): `serve`, its
// accounts commands, backup and migrate-data refuse it in one line, without a stack trace, and
// create nothing beside it (no `.secret`, no -wal/-shm) nor change it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { useTempDir } from '../helpers/temp.js';

async function serve(...args: string[]) {
  const io = captureIo({ env: {} });
  const code = await main(['serve', ...args], io);
  return { code, err: io.err() };
}

const FILES = {
  'a text file': (path: string) => writeFileSync(path, 'root:x:0:0:root:/root:/bin/bash\n'),
  "another program's SQLite database": (path: string) => {
    const db = new Database(path);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
    db.close();
  },
};

describe.each(Object.entries(FILES))('commands on %s', (_kind, make) => {
  const tempDir = useTempDir('admin-files');
  let dir: string;
  let file: string;
  let before: Buffer;
  beforeEach(() => {
    dir = tempDir();
    file = join(dir, 'passwd');
    make(file);
    before = readFileSync(file);
  });

  it.each([
    ['serve', ['--port', '0', '--db']],
    ['accounts list', ['accounts', 'list', '--db']],
    ['accounts create', ['accounts', 'create', 'bob', '--db']],
    ['accounts set-limit', ['accounts', 'set-limit', 'bob', '3', '--db']],
    ['backup', ['backup', '--out', 'copy.db', '--db']],
    ['migrate-data', ['migrate-data', '--to', 'postgres://nobody@127.0.0.1:1/none', '--from']],
  ])('%s refuses it in one line and leaves the directory as it was', async (_name, args) => {
    const out = (args as string[]).map((arg) => (arg === 'copy.db' ? join(dir, arg) : arg));
    const result = await serve(...out, file);
    expect(result.code).not.toBe(0);
    // One error line at the end (migrate-data announces the copy first), never a stack trace.
    expect(result.err).toMatch(new RegExp(`(^|\n)error: ${file} is not a sitesync database \\([^\n]+\\)\n$`));
    expect(result.err).not.toMatch(/\n\s+at /);
    expect(readdirSync(dir)).toEqual(['passwd']);
    expect(readFileSync(file)).toEqual(before);
  });
});
