// `sitesync serve --db postgres://…` and SITESYNC_SERVE_DB, in-process through main().
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/server/index.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';

const KEY = 'pg-serve-key-0123456789';

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(() => database.drop());

describe('sitesync serve on PostgreSQL', () => {
  it('serves from SITESYNC_SERVE_DB and never shows the password of the URL', async () => {
    const url = new URL(database.url);
    url.password = 'hunter2-secret'; // the test cluster trusts loopback, so any password works
    const controller = new AbortController();
    const io = { ...captureIo({ env: { SITESYNC_SERVE_DB: url.toString(), SITESYNC_SERVE_KEYS: KEY } }) };
    const listening = new Promise<void>((resolve) => {
      const stderr = io.stderr;
      io.stderr = {
        isTTY: stderr.isTTY,
        write: (text) => {
          stderr.write(text);
          if (/listening on .*\n/.test(io.err())) resolve();
        },
      };
    });
    const exit = main(['serve', '--port', '0', '--throttle', '0'], { ...io, signal: controller.signal });
    await Promise.race([listening, exit]);
    const serverUrl = /listening on (\S+?)[,\s]/.exec(io.err())?.[1];
    expect(serverUrl, io.err()).toBeDefined();
    const created = await request(serverUrl!, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'pg.example' } });
    expect(created.status).toBe(201);
    controller.abort();
    expect(await exit).toBe(0);
    expect(io.err()).toContain(`database postgres://postgres:***@${url.host}/`);
    expect(io.err()).not.toContain('hunter2');
  });

  it('an unreachable PostgreSQL is one line, no stack trace, no password, non-zero exit', async () => {
    const io = captureIo({ env: {} });
    const code = await main(['serve', '--port', '0', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x'], io);
    expect(code).not.toBe(0);
    expect(io.err().trim().split('\n')).toHaveLength(1);
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
      expect(listed.out).toMatch(new RegExp(`\\n1 +alice +0 +1 +on +1 +${key.slice(0, 7)}… +\\S+ +created\\n$`));
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
      expect(missing.err).toBe(`error: no account "nobody" in ${db.replace('hunter2-secret', '***')}\n`);
      for (const output of [created, listed, rotated, missing])
        expect(output.err + output.out).not.toContain('hunter2');
    } finally {
      await server.close();
    }
  });

  it('an unreachable PostgreSQL is one line without the password', async () => {
    const result = await cli('accounts', 'list', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/^error: cannot use PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/x: .*\n$/);
    expect(result.err).not.toContain('hunter2');
  });

  it('backup points to pg_dump in one line, without echoing the URL', async () => {
    const result = await cli('backup', '--db', 'postgres://someone:hunter2-secret@127.0.0.1:1/x', '--out', 'b.db');
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      'error: backup copies SQLite files; back up PostgreSQL with pg_dump (its dump includes the key secret): ' +
        'pg_dump --format=custom --file=sitesync.dump "$URL" (see docs/server.md, "Backups")\n',
    );
  });
});
