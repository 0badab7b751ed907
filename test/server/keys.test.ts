// Keys and accounts: listed, revoked and rotated while the server runs; the
// provisioned set is exactly SITESYNC_SERVE_KEYS; digests peppered with a 0600
// secret; the database file 0600; untrusted names and paths refused in one line. On both backends
// (`--db` is a file or a postgres:// URL), but for the file's own modes.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { describeProvisioning, startServer } from '../../src/server/index.js';
import { serveInProcess } from '../helpers/serve-in-process.js';
import { request, TEST_BACKEND } from '../helpers/server.js';
import { useTestDatabase } from '../helpers/test-database.js';

const KEY_A = 'provisioned-key-a-0123456789';
const KEY_B = 'provisioned-key-b-0123456789';

async function cli(...args: string[]) {
  const io = captureIo();
  const code = await main(['serve', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe('keys and accounts', () => {
  const database = useTestDatabase('keys');
  let dir: string;
  let db: string;
  beforeEach(() => {
    ({ dir, db } = database());
  });
  const status = async (url: string, key: string) => (await request(url, 'GET', '/api/v1/websites', { key })).status;

  it('revokes, rotates, limits and disables through the CLI while the server runs, effective at the next request', async () => {
    const created = await cli('accounts', 'create', 'alice', '--db', db);
    const key = created.out.trim();
    const server = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
    try {
      expect(await status(server.url, key)).toBe(200);

      const rotated = await cli('accounts', 'rotate-key', 'alice', '--db', db);
      expect(rotated.code).toBe(0);
      const newKey = rotated.out.trim();
      expect(newKey).toMatch(/^ss_/);
      expect(rotated.err).toContain('1 old key(s) revoked');
      expect(await status(server.url, key)).toBe(401);
      expect(await status(server.url, newKey)).toBe(200);

      const listed = await cli('accounts', 'list', '--db', db);
      expect(listed.code).toBe(0);
      const lines = listed.out.trim().split('\n');
      expect(lines[0]).toMatch(/^ACCOUNT +NAME +WEBSITES +LIMIT +API +ROLE +KEY +PREFIX +CREATED +SOURCE$/);
      expect(lines.find((line) => line.includes('alice'))).toMatch(
        new RegExp(`^1 +alice +0 +- +on +user +3 +${newKey.slice(0, 7)}… +\\d{4}-\\d\\d-\\d\\dT\\S+Z +created$`),
      );
      expect(lines.find((line) => line.includes('provisioned'))).toMatch(
        /^2 +key-[0-9a-f]{12} .* 2 +prov… .*provisioned$/,
      );
      for (const secret of [key, newKey, KEY_A]) expect(listed.out).not.toContain(secret);

      expect((await cli('accounts', 'set-limit', 'alice', '0', '--db', db)).code).toBe(0);
      const full = await request(server.url, 'POST', '/api/v1/websites', {
        key: newKey,
        form: { domain: 'a.example' },
      });
      expect(full.body.message).toEqual({ domain: ['You created too many websites.'] });

      expect((await cli('accounts', 'disable-api', 'alice', '--db', db)).code).toBe(0);
      expect(await status(server.url, newKey)).toBe(403);
      expect((await cli('accounts', 'enable-api', 'alice', '--db', db)).code).toBe(0);
      expect(await status(server.url, newKey)).toBe(200);

      expect((await cli('accounts', 'revoke-key', '3', '--db', db)).code).toBe(0);
      expect(await status(server.url, newKey)).toBe(401);
      expect(await cli('accounts', 'revoke-key', '3', '--db', db)).toMatchObject({
        code: 1,
        err: `error: no key 3 in ${db}\n`,
      });
    } finally {
      await server.close();
    }
  });

  it("gives and takes phpAnalytics' admin role (create --admin, set-admin), shown in the list (issue 37 row 20)", async () => {
    const created = await cli('accounts', 'create', 'root', '--admin', '--db', db);
    expect(created.err).toContain('created account "root" (id 1, unlimited websites, admin)');
    const role = async () =>
      (await cli('accounts', 'list', '--db', db)).out.split('\n').find((line) => line.includes('root'));
    expect(await role()).toMatch(/^1 +root +0 +- +on +admin +1 /);
    expect((await cli('accounts', 'set-admin', 'root', 'off', '--db', db)).err).toBe('account "root": user\n');
    expect(await role()).toMatch(/^1 +root +0 +- +on +user +1 /);
    expect(await cli('accounts', 'set-admin', 'root', 'yes', '--db', db)).toMatchObject({
      code: 1,
      err: 'error: set-admin root yes: expected on or off\n',
    });
  });

  it('provisions exactly SITESYNC_SERVE_KEYS: a removed key stops working at the next start; created keys stay', async () => {
    const created = (await cli('accounts', 'create', 'bob', '--db', db)).out.trim();
    const first = await startServer({ port: 0, db, keys: [KEY_A, KEY_B], throttlePerMinute: 0 });
    expect(await status(first.url, KEY_B)).toBe(200);
    await first.close();

    const second = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
    try {
      expect(await status(second.url, KEY_A)).toBe(200);
      expect(await status(second.url, KEY_B)).toBe(401);
      expect(await status(second.url, created)).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('provisions idempotently (issue 23, item 3): says what changed, keeps limits, restores a key put back', async () => {
    const accountA = `key-${createHash('sha256').update(KEY_A).digest('hex').slice(0, 12)}`;
    const start = (keys: string[]) => startServer({ port: 0, db, keys, throttlePerMinute: 0 });
    const first = await start([KEY_A]);
    expect(first.provisioning).toEqual({ added: [accountA], restored: [], revoked: 0, skipped: [], refused: [] });
    expect(describeProvisioning(first.provisioning)).toBe(`SITESYNC_SERVE_KEYS: 1 key(s) added (${accountA})`);
    expect(
      (await request(first.url, 'POST', '/api/v1/websites', { key: KEY_A, form: { domain: 'a.example' } })).status,
    ).toBe(201);
    expect((await cli('accounts', 'set-limit', accountA, '5', '--db', db)).code).toBe(0);

    // A start without keys leaves the provisioned ones alone: the running server keeps serving KEY_A.
    const unset = await start([]);
    expect(unset.provisioning).toEqual({ added: [], restored: [], revoked: 0, skipped: [], refused: [] });
    expect(await status(first.url, KEY_A)).toBe(200);
    await unset.close();

    // The same keys again: nothing changes, and the limit set by hand stays.
    const same = await start([KEY_A]);
    expect(same.provisioning).toEqual({ added: [], restored: [], revoked: 0, skipped: [], refused: [] });
    await same.close();
    expect((await cli('accounts', 'list', '--db', db)).out).toMatch(new RegExp(`${accountA} +1 +5 +on`));

    const other = await start([KEY_B]);
    expect(other.provisioning).toMatchObject({ added: [expect.stringMatching(/^key-/)], revoked: 1 });
    expect(describeProvisioning(other.provisioning)).toMatch(
      /; 1 revoked \(no longer listed; accounts and websites kept\)$/,
    );
    expect(await status(first.url, KEY_A)).toBe(401);
    await other.close();

    // Put back: the key returns to its account, websites and limit included.
    const back = await start([KEY_A, KEY_B]);
    try {
      expect(back.provisioning).toEqual({ added: [], restored: [accountA], revoked: 0, skipped: [], refused: [] });
      const listed = await request(back.url, 'GET', '/api/v1/websites', { key: KEY_A });
      expect(listed.body.data.map((site: { domain: string }) => site.domain)).toEqual(['a.example']);
      expect((await cli('accounts', 'list', '--db', db)).out).toMatch(new RegExp(`${accountA} +1 +5 +on`));
    } finally {
      await back.close();
      await first.close();
    }
  });

  it('does not give a rotated provisioned account its old key back, and says so', async () => {
    const accountA = `key-${createHash('sha256').update(KEY_A).digest('hex').slice(0, 12)}`;
    await (await startServer({ port: 0, db, keys: [KEY_A] })).close();
    const rotated = (await cli('accounts', 'rotate-key', accountA, '--db', db)).out.trim();
    const again = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
    try {
      expect(again.provisioning).toEqual({ added: [], restored: [], revoked: 0, skipped: [accountA], refused: [] });
      expect(await status(again.url, KEY_A)).toBe(401);
      expect(await status(again.url, rotated)).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('never provisions again a key revoked with revoke-key (issue 33, item 7), and the start line says so', async () => {
    const accountA = `key-${createHash('sha256').update(KEY_A).digest('hex').slice(0, 12)}`;
    const start = (keys: string[]) => startServer({ port: 0, db, keys, throttlePerMinute: 0 });
    const first = await start([KEY_A]);
    const [keyId] = (await first.store.listAccounts()).flatMap((account) => account.keys.map((key) => key.id));
    await first.close();
    const revoked = await cli('accounts', 'revoke-key', String(keyId), '--db', db);
    expect(revoked.err).toBe(`key ${keyId} revoked: it is refused from the next request on\n`);

    const again = await start([KEY_A]);
    try {
      expect(again.provisioning).toEqual({ added: [], restored: [], revoked: 0, skipped: [], refused: [accountA] });
      expect(describeProvisioning(again.provisioning)).toBe(
        `SITESYNC_SERVE_KEYS: 1 skipped: the key of ${accountA} was revoked (serve accounts revoke-key or rotate-key); ` +
          'a revoked key is never provisioned again',
      );
      expect(await status(again.url, KEY_A)).toBe(401);
    } finally {
      await again.close();
    }
    // Left out of the list and put back later: still revoked.
    await (await start([KEY_B])).close();
    const back = await start([KEY_A, KEY_B]);
    try {
      expect(back.provisioning.refused).toEqual([accountA]);
      expect(await status(back.url, KEY_A)).toBe(401);
      expect(await status(back.url, KEY_B)).toBe(200);
    } finally {
      await back.close();
    }
    // `serve` itself prints the line before it listens.
    const serving = await serveInProcess(['--db', db], { SITESYNC_SERVE_KEYS: KEY_A });
    expect(await serving.stop()).toBe(0);
    expect(serving.io.err()).toMatch(
      new RegExp(`^sitesync serve: SITESYNC_SERVE_KEYS: .*1 skipped: the key of ${accountA} was revoked`, 'm'),
    );
  });

  it('does not restore a provisioned key whose account was rotated and the new key revoked too', async () => {
    const accountA = `key-${createHash('sha256').update(KEY_A).digest('hex').slice(0, 12)}`;
    await (await startServer({ port: 0, db, keys: [KEY_A] })).close();
    expect((await cli('accounts', 'rotate-key', accountA, '--db', db)).code).toBe(0);
    const listed = (await cli('accounts', 'list', '--db', db)).out;
    const createdId = new RegExp(`${accountA} .* (\\d+) +ss_`).exec(listed)?.[1];
    expect((await cli('accounts', 'revoke-key', createdId!, '--db', db)).code).toBe(0);
    const again = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
    try {
      expect(again.provisioning).toMatchObject({ restored: [], refused: [accountA] });
      expect(await status(again.url, KEY_A)).toBe(401);
    } finally {
      await again.close();
    }
  });

  it('refuses provisioned keys shorter than 16 characters, in one line naming neither key', async () => {
    await expect(startServer({ port: 0, db, keys: [KEY_A, 'short-key'] })).rejects.toThrow(
      'SITESYNC_SERVE_KEYS: key 2 of 2 is 9 characters long; provisioned keys need at least 16',
    );
    const io = captureIo({ env: { SITESYNC_SERVE_KEYS: `${KEY_A},short-key` } });
    expect(await main(['serve', '--port', '0', '--db', db], io)).toBe(1);
    expect(io.err()).toBe(
      'error: SITESYNC_SERVE_KEYS: key 2 of 2 is 9 characters long; provisioned keys need at least 16\n',
    );
  });

  // About the SQLite file and its secret file; PostgreSQL's equivalent is the next test.
  it.runIf(TEST_BACKEND === 'sqlite')(
    'stores key digests peppered with a 0600 secret beside a 0600 database file',
    async () => {
      const server = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
      expect(await status(server.url, KEY_A)).toBe(200);
      await server.close();
      expect(statSync(db).mode & 0o777).toBe(0o600);
      expect(statSync(`${db}.secret`).mode & 0o777).toBe(0o600);
      const bytes = readdirSync(dir)
        .filter((name) => name !== 'keys.db.secret')
        .map((name) => readFileSync(join(dir, name)).toString('latin1'))
        .join('');
      expect(bytes).not.toContain(KEY_A);
      // A bare sha256 digest would let anyone holding the file test guessed keys offline.
      expect(bytes).not.toContain(createHash('sha256').update(KEY_A).digest('hex'));
    },
  );

  it.runIf(TEST_BACKEND === 'postgres')('stores key digests peppered with the secret kept in PostgreSQL', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY_A], throttlePerMinute: 0 });
    expect(await status(server.url, KEY_A)).toBe(200);
    await server.close();
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT key_hash, prefix FROM api_keys');
      const digest = createHash('sha256').update(KEY_A).digest('hex');
      expect(rows).toEqual([{ key_hash: expect.stringMatching(/^[0-9a-f]{64}$/), prefix: KEY_A.slice(0, 4) }]);
      // Neither the key nor its bare sha256 digest: a leaked api_keys table alone cannot test guessed keys.
      expect(rows[0].key_hash).not.toBe(digest);
      expect(JSON.stringify(rows)).not.toContain(KEY_A);
    } finally {
      await client.end();
    }
  });

  it.each([
    [
      ['accounts', 'create', 'evil\u001b[2Jname', '--db', 'DB'],
      'error: the account name must not contain control characters\n',
    ],
    [
      ['accounts', 'create', 'rtl\u202ename', '--db', 'DB'],
      'error: the account name must not contain control characters\n',
    ],
    // Issue 23, item 11: names are shown and looked up as typed, so padding would make two "bob"s.
    [['accounts', 'create', ' bob ', '--db', 'DB'], 'error: the account name must not start or end with spaces\n'],
    [['accounts', 'create', 'bob\t', '--db', 'DB'], 'error: the account name must not start or end with spaces\n'],
    [['accounts', 'create', 'carol', '--db', 'MISSING'], 'error: the database directory DIR/missing does not exist\n'],
    [['accounts', 'list', '--db', 'MISSING'], 'error: no database at DIR/missing/keys.db\n'],
    [['accounts', 'set-limit', 'nobody', '3', '--db', 'DB'], 'error: no account "nobody" in DB\n'],
    [
      ['accounts', 'set-limit', 'nobody', 'lots', '--db', 'DB'],
      'error: --website limit must be a whole number from 0 to 1000000000, not "lots"\n',
    ],
    [['--port', '0', '--db', 'MISSING'], 'error: the database directory DIR/missing does not exist\n'],
  ])('refuses %j in one line', async (args, message) => {
    await cli('accounts', 'create', 'existing', '--db', db);
    const missing = join(dir, 'missing', 'keys.db');
    const resolved = args.map((arg) => (arg === 'DB' ? db : arg === 'MISSING' ? missing : arg));
    const io = captureIo({ env: { SITESYNC_SERVE_KEYS: KEY_A } });
    expect(await main(['serve', ...resolved], io)).toBe(1);
    expect(io.err()).toBe(message.replace('DIR', dir).replace(/\bDB\b/, db));
    expect(io.out()).toBe('');
  });
});
