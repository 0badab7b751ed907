// `sitesync serve migrate-data --from FILE.db --to postgres://…`: a real SQLite file (with its secret) copied into
// a real PostgreSQL database; keys keep working against a server on PostgreSQL, ids are kept, the next create
// gets a fresh id, and every refusal is one line that never shows the connection's password.
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startServer } from '../../src/server/index.js';
import { openPostgresStore } from '../../src/server/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { request } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const PROVISIONED = 'migrate-provisioned-key-0123456789';
const PASSWORD = 'hunter2-secret-password';
/** A password in --to on the command line is warned about first (db-password.test.ts). */
const TO_WARNING =
  'warning: --to holds the database password, which `ps` shows to every local user: give the URL without it ' +
  'and the password in PGPASSWORD or ~/.pgpass\n';

async function cli(...args: string[]) {
  const io = captureIo({ env: {} });
  const code = await main(['serve', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** The target URL with a password: the test cluster trusts loopback, so any password works. */
const withPassword = (url: string) => {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
};

describe('serve migrate-data', () => {
  const tempDir = useTempDir('migrate');
  let database: TestDatabase;
  let file: string;
  beforeEach(async () => {
    database = await createTestDatabase();
    file = join(tempDir(), 'source.db');
  });
  afterEach(() => database.drop());

  /** An SQLite state: a provisioned account, a created account with its key, websites (one deleted). */
  async function sqliteState(): Promise<{ created: string; sites: unknown[] }> {
    const created = (
      await cli('accounts', 'create', 'alice', '--website-limit', '5', '--admin', '--db', file)
    ).out.trim();
    const server = await startServer({ port: 0, db: file, keys: [PROVISIONED], throttlePerMinute: 0 });
    try {
      const post = (key: string, form: Record<string, string>) =>
        request(server.url, 'POST', '/api/v1/websites', { key, form });
      expect((await post(created, { domain: 'one.example', privacy: '2', password: 'a-site-password' })).status).toBe(
        201,
      );
      expect((await post(PROVISIONED, { domain: 'two.example', exclude_ips: '10.0.0.1\n::1' })).status).toBe(201);
      const third = await post(created, { domain: 'three.example' });
      expect(
        (await request(server.url, 'PATCH', '/api/v1/websites/2', { key: PROVISIONED, form: { favorite: '1' } }))
          .status,
      ).toBe(200);
      // The newest site is deleted: SQLite never reuses its id, and neither may PostgreSQL.
      expect(
        (await request(server.url, 'DELETE', `/api/v1/websites/${third.body.data.id}`, { key: created })).status,
      ).toBe(200);
      const sites = [
        ...(await request(server.url, 'GET', '/api/v1/websites', { key: created })).body.data,
        ...(await request(server.url, 'GET', '/api/v1/websites', { key: PROVISIONED })).body.data,
      ];
      return { created, sites };
    } finally {
      await server.close();
    }
  }

  it('copies accounts, keys and websites: keys work on PostgreSQL, ids kept, the next create gets a fresh id', async () => {
    const { created, sites } = await sqliteState();
    const migrated = await cli('migrate-data', '--from', file, '--to', withPassword(database.url));
    expect(migrated.code, migrated.err).toBe(0);
    expect(migrated.err).toMatch(
      /copied 2 account\(s\), 2 key\(s\) and 2 website\(s\), ids kept \(next website id 4\), with the key secret; verified: counts and checksum sha256:[0-9a-f]{16} equal on both sides\n$/,
    );
    expect(migrated.err).toContain('postgres://postgres:***@');
    expect(migrated.err + migrated.out).not.toContain(PASSWORD);

    const server = await startServer({ port: 0, db: database.url, keys: [PROVISIONED], throttlePerMinute: 0 });
    try {
      const list = async (key: string) => (await request(server.url, 'GET', '/api/v1/websites', { key })).body.data;
      // Both keys work (the pepper came along), and each sees its sites exactly as before, ids included.
      expect([...(await list(created)), ...(await list(PROVISIONED))]).toEqual(sites);
      const next = await request(server.url, 'POST', '/api/v1/websites', {
        key: created,
        form: { domain: 'four.example' },
      });
      expect(next.status).toBe(201);
      expect(next.body.data.id).toBe(4);
      // The account's limit and website count came along: 2 of 5 used now, so 3 more fit, then 422.
      for (const domain of ['five.example', 'six.example', 'seven.example']) {
        expect((await request(server.url, 'POST', '/api/v1/websites', { key: created, form: { domain } })).status).toBe(
          201,
        );
      }
      const full = await request(server.url, 'POST', '/api/v1/websites', {
        key: created,
        form: { domain: 'eight.example' },
      });
      expect(full.body.message).toEqual({ domain: ['You created too many websites.'] });
      // The admin role came along (issue 37 row 20).
      const roles = (await server.store.listAccounts()).map((account) => [account.name, account.admin]);
      expect(roles).toEqual([
        ['alice', true],
        [expect.stringMatching(/^key-/), false],
      ]);
    } finally {
      await server.close();
    }
    // A new account on PostgreSQL gets a fresh id too, and accounts commands work on the URL.
    const account = await cli('accounts', 'create', 'bob', '--db', withPassword(database.url));
    expect(account.err).toContain('created account "bob" (id 3, unlimited websites) in postgres://postgres:***@');
    expect(account.err).not.toContain(PASSWORD);
  });

  it('carries the revoked keys along: a key revoked on SQLite is not provisioned again on PostgreSQL (issue 33, item 7)', async () => {
    await sqliteState();
    const listed = (await cli('accounts', 'list', '--db', file)).out;
    const provisionedId = / (\d+) +migr… .*provisioned$/m.exec(listed)?.[1];
    expect((await cli('accounts', 'revoke-key', provisionedId!, '--db', file)).code).toBe(0);
    const migrated = await cli('migrate-data', '--from', file, '--to', database.url);
    expect(migrated.code, migrated.err).toBe(0);
    expect(migrated.err).toContain(
      'copied 2 account(s), 1 key(s) and 2 website(s), ids kept (with 1 revoked key(s), still refused)',
    );
    const server = await startServer({ port: 0, db: database.url, keys: [PROVISIONED], throttlePerMinute: 0 });
    try {
      expect(server.provisioning.refused).toHaveLength(1);
      expect((await request(server.url, 'GET', '/api/v1/websites', { key: PROVISIONED })).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('refuses a target that is not empty unless --replace, in one line', async () => {
    await sqliteState();
    expect((await cli('migrate-data', '--from', file, '--to', database.url)).code).toBe(0);
    const again = await cli('migrate-data', '--from', file, '--to', withPassword(database.url));
    expect(again.code).toBe(1);
    expect(again.err).toMatch(
      /^warning: --to holds the database password[^\n]+\ncopying .*\nerror: postgres:\/\/postgres:\*\*\*@[^ ]+ already holds 2 account\(s\), 2 key\(s\), 2 website\(s\): migrate into an empty database, or pass --replace to delete them first\n$/,
    );
    expect(again.err).not.toContain(PASSWORD);
    const replaced = await cli('migrate-data', '--from', file, '--to', database.url, '--replace');
    expect(replaced.code, replaced.err).toBe(0);
    expect(replaced.err).toContain('copied 2 account(s), 2 key(s) and 2 website(s)');
  });

  it('rolls everything back when the rows read back differ from the file', async () => {
    await sqliteState();
    // The target's schema exists, with a trigger that alters what is stored: the checksum must catch it.
    await (await openPostgresStore(database.url)).close();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(`CREATE FUNCTION tamper() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.exclude_ips := coalesce(NEW.exclude_ips, '') || ' '; RETURN NEW; END $$;
        CREATE TRIGGER tamper BEFORE INSERT ON websites FOR EACH ROW EXECUTE FUNCTION tamper();`);
      const migrated = await cli('migrate-data', '--from', file, '--to', database.url);
      expect(migrated.code).toBe(1);
      expect(migrated.err).toMatch(
        /\nerror: verification failed: the rows read back from PostgreSQL differ from the file \(checksum [0-9a-f]{16} vs [0-9a-f]{16}\); nothing was copied\n$/,
      );
      const { rows } = await client.query(
        'SELECT (SELECT count(*) FROM accounts)::int AS a, (SELECT count(*) FROM websites)::int AS w',
      );
      expect(rows[0]).toEqual({ a: 0, w: 0 });
    } finally {
      await client.end();
    }
  });

  it.each([
    [
      ['--from', '<dir>/none.db', '--to', '<url>'],
      '<warning>copying <dir>/none.db to <shown>…\nerror: no database at <dir>/none.db\n',
    ],
    [['--from', '<file>', '--to', '<dir>/other.db'], 'error: --to must be a postgres:// (or postgresql://) URL\n'],
    [
      ['--from', '<file>', '--to', '<url>', '--no-secret'],
      '<warning>copying <file> to <shown>…\nerror: <file>.secret is missing: the keys of <file> are digests peppered with it, ' +
        'so none would work after the copy (put the secret back beside the file)\n',
    ],
  ])('refuses %j in one line, never showing the password', async (args, expected) => {
    await sqliteState();
    const url = withPassword(database.url);
    const resolve = (text: string) =>
      text
        .replaceAll('<warning>', TO_WARNING)
        .replaceAll('<dir>', join(file, '..'))
        .replaceAll('<file>', file)
        .replaceAll('<url>', url)
        .replaceAll('<shown>', `${url.replace(PASSWORD, '***')} in one transaction`);
    if (args.includes('--no-secret')) renameSync(`${file}.secret`, `${file}.secret.aside`);
    const result = await cli('migrate-data', ...args.filter((arg) => arg !== '--no-secret').map(resolve));
    expect(result.code).toBe(1);
    expect(result.err).toBe(resolve(expected));
  });

  it('says in one line that PostgreSQL is unreachable, without the password or a stack trace', async () => {
    await sqliteState();
    const result = await cli('migrate-data', '--from', file, '--to', `postgres://someone:${PASSWORD}@127.0.0.1:1/x`);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /\nerror: cannot use PostgreSQL at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED.*\n$/,
    );
    expect(result.err.trim().split('\n')).toHaveLength(3); // the warning, copying…, the error
    expect(result.err).not.toContain(PASSWORD);
  });
});
