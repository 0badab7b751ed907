// `sitesync serve --db postgres://…` and SITESYNC_SERVE_DB, in-process through main().
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
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

describe('sitesync serve accounts on a PostgreSQL URL', () => {
  it('is refused in one line without echoing the URL (not built yet), and creates no file', async () => {
    const io = captureIo({ env: {} });
    const url = 'postgres://someone:hunter2-secret@127.0.0.1:1/x';
    const code = await main(['serve', 'accounts', 'create', 'team', '--db', url], io);
    expect(code).not.toBe(0);
    expect(io.err()).toContain('accounts commands take an SQLite file for now, not a postgres:// URL');
    expect(io.err()).not.toContain('hunter2');
  });
});
