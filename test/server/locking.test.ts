// A locked database never freezes the server: while another connection holds
// the write lock, reads keep flowing and a write waits off the event loop, then
// succeeds or answers 503 with Retry-After (never 500). Processes starting on
// one new file together all start.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { SITESYNC_COMMAND } from '../helpers/serve-process.js';
import { request } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const KEY = 'locking-test-key-0123456789';
const ROOT = resolve(import.meta.dirname, '../..');

describe('a database locked by another process', () => {
  const tempDir = useTempDir('locking');
  let db: string;
  beforeEach(() => {
    db = join(tempDir(), 'locked.db');
  });

  async function withLockedServer(
    lockWaitMs: number,
    test: (server: RunningServer, unlock: () => void) => Promise<void>,
  ) {
    const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0, lockWaitMs });
    const created = await request(server.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain: 'a.example' } });
    expect(created.status).toBe(201);
    const other = new Database(db);
    try {
      other.exec('BEGIN IMMEDIATE'); // what a backup, a `sqlite3` shell or a second server's write does
      await test(server, () => other.exec('ROLLBACK'));
      if (other.inTransaction) other.exec('ROLLBACK');
    } finally {
      other.close();
      await server.close();
    }
  }

  it('serves other requests while a write waits for the lock, and the write succeeds once it is released', async () => {
    await withLockedServer(60_000, async (server, unlock) => {
      // A pass-through spy tells when the write has reached the locked database.
      const insert = server.store.insertWebsite;
      const reached = new Promise<void>((done) => {
        server.store.insertWebsite = (...args) => {
          done();
          return insert(...args);
        };
      });
      let writeDone = false;
      const write = request(server.url, 'POST', '/api/v1/websites', {
        key: KEY,
        form: { domain: 'b.example' },
      }).finally(() => {
        writeDone = true;
      });
      await reached;
      for (let i = 0; i < 5; i++) {
        const read = await request(server.url, 'GET', '/api/v1/websites/1', { key: KEY });
        expect(read.status).toBe(200);
      }
      const list = await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
      expect(list.body.meta.total).toBe(1);
      expect(writeDone).toBe(false);
      unlock();
      expect((await write).status).toBe(201);
    });
  });

  it('answers 503 with Retry-After, in the error shape, when the lock outlasts the wait', async () => {
    await withLockedServer(30, async (server) => {
      const response = await request(server.url, 'POST', '/api/v1/websites', {
        key: KEY,
        form: { domain: 'c.example' },
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.body).toEqual({ message: 'Service Unavailable.', status: 503 });
      const update = await request(server.url, 'PATCH', '/api/v1/websites/1', { key: KEY, form: { email: '1' } });
      expect(update.status).toBe(503);
    });
  });

  it('waits at start-up for a lock another process holds, says so, and starts once it is released', async () => {
    // SQLite's own busy handler gave up after 5 s ("database is locked") and can skip waiting altogether when two
    // starting processes each hold a read lock: the start-up retries, and tells the operator it is waiting.
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    const script = `
      const { openSqliteStore } = await import('./src/server/index.ts');
      const store = openSqliteStore(process.argv[1], { onLockWait: () => process.stderr.write('waiting\\n') });
      await store.close();
      process.stdout.write('ok');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, db], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const waiting = new Promise<void>((done) =>
      child.stderr.on('data', (chunk) => {
        err += chunk;
        if (err.includes('waiting')) done();
      }),
    );
    try {
      // Released only once the child says it waits: it can never time out on its own first.
      const first = await Promise.race([waiting.then(() => 'waiting'), exited.then(() => 'exited')]);
      expect(first, `the child's stderr: ${err}`).toBe('waiting');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await exited).toBe(0);
    expect({ out, err }).toEqual({ out: 'ok', err: 'waiting\n' });
  });

  it('sitesync serve tells the operator when it waits at start-up for a lock, then listens once it is released', async () => {
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    const [command, ...rest] = SITESYNC_COMMAND;
    const child = spawn(command!, [...rest, 'serve', '--port', '0', '--db', db], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', SITESYNC_SERVE_KEYS: KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const exited = new Promise<void>((done) => child.on('close', () => done()));
    const seen = (text: string) =>
      new Promise<boolean>((done) => {
        const look = () => err.includes(text) && done(true);
        child.stderr.on('data', (chunk) => {
          err += chunk;
          look();
        });
        look();
        exited.then(() => done(false));
      });
    try {
      // Released only once the server says it waits: it cannot give up first (it waits up to 60 s).
      expect(await seen('is locked by another process; waiting up to 60 s'), `stderr: ${err}`).toBe(true);
      other.exec('ROLLBACK');
      expect(await seen('listening on'), `stderr: ${err}`).toBe(true);
      expect(err).toContain(`sitesync serve: ${db} is locked by another process; waiting up to 60 s\n`);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('lets four processes start on one new database file at the same moment', async () => {
    const script = `
      const { openSqliteStore } = await import('./src/server/index.ts');
      const store = openSqliteStore(process.argv[1]);
      await store.close();
      process.stdout.write('ok');`;
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<{ code: number | null; out: string }>((done) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, db], {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (chunk) => {
            out += chunk;
          });
          child.stderr.on('data', (chunk) => {
            out += chunk;
          });
          child.on('close', (code) => done({ code, out }));
        }),
    );
    expect(await Promise.all(runs)).toEqual(Array(4).fill({ code: 0, out: 'ok' }));
  });
});
