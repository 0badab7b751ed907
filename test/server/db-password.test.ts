// The database password stays out of argv (issue 23, item 7): `--db-file` holds the --db value,
// and a password written in a --db or --to URL on the command line is used but warned about,
// never shown. (Serving from --db-file on PostgreSQL: postgres-serve.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/temp.js';

const WARNING =
  /^warning: (--db|--to) holds the database password, which `ps` shows to every local user: give the URL without it and the password in PGPASSWORD or ~\/\.pgpass(, or the whole URL in --db-file or SITESYNC_SERVE_DB)?$/m;

async function sitesync(args: string[], env: Record<string, string> = {}) {
  const io = captureIo({ env });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('the database password', () => {
  it.each([
    ['serve', ['serve', '--port', '0', '--db', 'postgres://ss:S3cret-pass@127.0.0.1:1/none']],
    ['accounts list', ['serve', 'accounts', 'list', '--db', 'postgres://ss:S3cret-pass@127.0.0.1:1/none']],
    [
      'a password in the query',
      ['serve', 'accounts', 'list', '--db', 'postgres://ss@127.0.0.1:1/none?password=S3cret-pass'],
    ],
    [
      'migrate-data --to',
      ['serve', 'migrate-data', '--from', '/nonexistent.db', '--to', 'postgres://ss:S3cret-pass@127.0.0.1:1/x'],
    ],
  ])('on the command line (%s): warned about, never shown', async (_name, args) => {
    const result = await sitesync(args);
    expect(result.code).not.toBe(0); // nothing listens on port 1
    expect(result.err).toMatch(WARNING);
    expect(result.err + result.out).not.toContain('S3cret');
  });

  it('no warning for a URL without a password, nor for SITESYNC_SERVE_DB', async () => {
    for (const [args, env] of [
      [['serve', 'accounts', 'list', '--db', 'postgres://ss@127.0.0.1:1/none'], { PGPASSWORD: 'S3cret-pass' }],
      [['serve', 'accounts', 'list'], { SITESYNC_SERVE_DB: 'postgres://ss:S3cret-pass@127.0.0.1:1/none' }],
    ] as const) {
      const result = await sitesync([...args], { ...env });
      expect(result.code).not.toBe(0);
      expect(result.err).not.toMatch(/warning/);
      expect(result.err).not.toContain('S3cret');
    }
  });

  it('--db-file holds the --db value for serve and its admin commands', async () => {
    const dir = tempDir('db-file');
    const file = join(dir, 'db-location');
    writeFileSync(file, `\n${join(dir, 'sites.db')}\n`, { mode: 0o600 });
    const created = await sitesync(['serve', 'accounts', 'create', 'alice', '--db-file', file]);
    expect(created.code, created.err).toBe(0);
    expect(created.err).toContain(`in ${join(dir, 'sites.db')}`);
    const listed = await sitesync(['serve', '--db-file', file, 'accounts', 'list']);
    expect(listed.out).toMatch(/^1 +alice /m);
  });

  it('refuses --db with --db-file, and an unreadable or empty --db-file, in one line', async () => {
    const dir = tempDir('db-file');
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n \n');
    const cases: [string[], string][] = [
      [['--db', 'a.db', '--db-file', empty], 'error: --db and --db-file both name the database: give one\n'],
      [['--db-file', join(dir, 'missing')], `error: --db-file ${join(dir, 'missing')}: cannot read it (ENOENT)\n`],
      [['--db-file', empty], `error: --db-file ${empty} is empty: write the database path or URL in it\n`],
    ];
    for (const [args, message] of cases) {
      const result = await sitesync(['serve', 'accounts', 'list', ...args]);
      expect(result.code).not.toBe(0);
      expect(result.err).toBe(message);
    }
  });
});
