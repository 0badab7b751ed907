// `sitesync serve --db postgres://…` and SITESYNC_SERVE_DB, in-process through main().
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/server/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { serveInProcess } from '../helpers/serve-in-process.js';
import { request } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const KEY = 'pg-serve-key-0123456789';
/** A password in a --db URL on the command line is warned about first (db-password.test.ts). */
const ARGV_WARNING =
  'warning: --db holds the database password, which `ps` shows to every local user: give the URL without it ' +
  'and the password in PGPASSWORD or ~/.pgpass, or the whole URL in --db-file or SITESYNC_SERVE_DB\n';

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
});
afterEach(() => database.drop());

describe('sitesync serve on PostgreSQL', () => {
  it('serves from SITESYNC_SERVE_DB and never shows the password of the URL', async () => {
    const url = new URL(database.url);
    url.password = 'hunter2-secret'; // the test cluster trusts loopback, so any password works
    const serve = await serveInProcess(['--throttle', '0'], {
      SITESYNC_SERVE_DB: url.toString(),
      SITESYNC_SERVE_KEYS: KEY,
    });
    const created = await request(serve.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'pg.example' } });
    expect(created.status).toBe(201);
    expect(await serve.stop()).toBe(0);
    expect(serve.io.err()).toContain(`database postgres://postgres:***@${url.host}/`);
    expect(serve.io.err()).not.toContain('hunter2');
  });

  it('serves from --db-file (the URL without a password, PGPASSWORD beside it) and warns about nothing', async () => {
    const file = join(tempDir('db-file'), 'db-url');
    writeFileSync(file, `${database.url}\n`, { mode: 0o600 });
    const serve = await serveInProcess(['--throttle', '0', '--db-file', file], {
      PGPASSWORD: 'hunter2-secret',
      SITESYNC_SERVE_KEYS: KEY,
    });
    expect((await request(serve.url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(200);
    expect(await serve.stop()).toBe(0);
    expect(serve.io.err()).not.toMatch(/warning|hunter2/);
  });

  it('an unreachable PostgreSQL is one line, no stack trace, no password, non-zero exit', async () => {
    const io = captureIo({ env: {} });
    const code = await main(['serve', '--port', '0', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x'], io);
    expect(code).not.toBe(0);
    // The error, after the warning about the password on the command line (issue 23, item 7).
    const lines = io.err().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^warning: --db holds the database password, which `ps` shows to every local user: /);
    expect(io.err()).toMatch(/cannot use PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED/);
    expect(io.err()).not.toContain('hunter2');
    expect(io.err()).not.toContain('    at ');
  });
});

describe('sitesync serve accounts and backup on a PostgreSQL URL', () => {
  const cli = async (...args: string[]) => {
    const io = captureIo({ env: {} });
    const code = await main(['serve', ...args], io);
    return { code, out: io.out(), err: io.err() };
  };

  it('manages accounts and keys on PostgreSQL, effective at the next request; never shows the password', async () => {
    const url = new URL(database.url);
    url.password = 'hunter2-secret'; // the test cluster trusts loopback, so any password works
    const db = url.toString();
    const created = await cli('accounts', 'create', 'alice', '--website-limit', '1', '--db', db);
    expect(created.code, created.err).toBe(0);
    const key = created.out.trim();
    expect(key).toMatch(/^ss_/);
    const server = await startServer({ port: 0, db: database.url, throttlePerMinute: 0 });
    try {
      const status = async (k: string) => (await request(server.url, 'GET', '/api/v1/websites', { key: k })).status;
      expect(await status(key)).toBe(200);
      // SITESYNC_SERVE_DB names the database for accounts commands too, as for serve.
      const io = captureIo({ env: { SITESYNC_SERVE_DB: db } });
      expect(await main(['serve', 'accounts', 'list'], io)).toBe(0);
      const listed = { out: io.out(), err: io.err() };
      expect(listed.out).toMatch(new RegExp(`\\n1 +alice +0 +1 +on +user +1 +${key.slice(0, 7)}… +\\S+ +created\\n$`));
      expect((await cli('accounts', 'disable-api', 'alice', '--db', db)).code).toBe(0);
      expect(await status(key)).toBe(403);
      expect((await cli('accounts', 'enable-api', 'alice', '--db', db)).code).toBe(0);
      const rotated = await cli('accounts', 'rotate-key', 'alice', '--db', db);
      expect(rotated.err).toContain('1 old key(s) revoked');
      expect(await status(key)).toBe(401);
      expect(await status(rotated.out.trim())).toBe(200);
      expect((await cli('accounts', 'revoke-key', '2', '--db', db)).code).toBe(0);
      expect(await status(rotated.out.trim())).toBe(401);
      const missing = await cli('accounts', 'set-limit', 'nobody', '3', '--db', db);
      expect(missing.err).toBe(`${ARGV_WARNING}error: no account "nobody" in ${db.replace('hunter2-secret', '***')}\n`);
      for (const output of [created, listed, rotated, missing])
        expect(output.err + output.out).not.toContain('hunter2');
    } finally {
      await server.close();
    }
  });

  it('an unreachable PostgreSQL is one line without the password', async () => {
    const result = await cli('accounts', 'list', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x');
    expect(result.code).toBe(1);
    expect(result.err.startsWith(ARGV_WARNING)).toBe(true);
    expect(result.err).toMatch(
      /\nerror: cannot use PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/x: .*\n$/,
    );
    expect(result.err).not.toContain('hunter2');
  });

  it('backup points to pg_dump in one line, without echoing the URL', async () => {
    const result = await cli('backup', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x', '--out', 'b.db');
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      ARGV_WARNING +
        'error: backup copies SQLite files; back up PostgreSQL with pg_dump (its dump includes the key secret): ' +
        'pg_dump --format=custom --file=sitesync.dump "$URL" (see docs/server.md, "Backups")\n',
    );
  });
});
