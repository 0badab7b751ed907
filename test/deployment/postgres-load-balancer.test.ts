// scripts/replicas.sh for real: two `sitesync serve` replicas on one PostgreSQL database behind
// HAProxy (scripts/haproxy.cfg). The real CLI plans, applies and exports through the balancer; the
// per-key throttle holds across replicas; a replica killed with SIGKILL is taken out by the health
// check while the other keeps answering; the replicas sit on Unix sockets no other user can open, so no
// one but HAProxy says who a client is; SIGTERM to the script stops and removes everything.
// Part of the deployment suite (npm run test:deployment), whose global setup checks for HAProxy first.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/postgres-cluster.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { sendRaw } from '../helpers/raw-http.js';
import { ROOT } from '../helpers/serve-process.js';
import { request } from '../helpers/server.js';
import { tempDirWith } from '../helpers/temp.js';

const KEY = 'balanced-key-0123456789';
/** In the database URL given to the script: the test cluster trusts every connection, so it is never checked. */
const DB_PASSWORD = 'balanced-db-password-0123456789';
/** The CLI from the sources, runnable from any directory. */
const CLI = [
  process.execPath,
  '--import',
  pathToFileURL(resolve(ROOT, 'node_modules/tsx/dist/loader.mjs')).href,
  resolve(ROOT, 'src/cli/bin.ts'),
];

/** Prints the error code of connecting to the Unix socket argv[1] (or "connected"). */
const CONNECT_PROBE = `require('net').connect(process.argv[1])
  .on('connect', function () { console.log('connected'); this.destroy(); })
  .on('error', (error) => console.log(error.code));`;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

function run(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(CLI[0]!, [...CLI.slice(1), ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

interface Deployment {
  script: ChildProcess;
  exited: Promise<number | NodeJS.Signals | null>;
  url: string;
  key: string;
  replicas: { pid: number; log: string }[];
  haproxyPid: number;
  workDir: string;
  stderr(): string;
  /** Resolves once stderr holds a line matching `pattern`. */
  until(pattern: RegExp): Promise<void>;
}

function startDeployment(db: string, port: number): Promise<Deployment> {
  const script = spawn(
    resolve(ROOT, 'scripts/replicas.sh'),
    ['--db', db, '--port', String(port), '--log-level', 'info'],
    {
      env: {
        PATH: process.env.PATH ?? '',
        TMPDIR: process.env.TMPDIR ?? '/tmp',
        SITESYNC_COMMAND: CLI.join(' '),
        SITESYNC_SERVE_KEYS: KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; done: () => void }[] = [];
  const exited = new Promise<number | NodeJS.Signals | null>((done) =>
    script.on('close', (code, signal) => done(signal ?? code)),
  );
  script.stderr!.on('data', (chunk) => {
    err += chunk;
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(err)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
    }
  });
  const until = (pattern: RegExp) =>
    new Promise<void>((done) => (pattern.test(err) ? done() : waiters.push({ pattern, done })));
  return new Promise((done, fail) => {
    script.stdout!.on('data', (chunk) => {
      out += chunk;
      const key = /^export SITESYNC_API_KEY=(\S+)$/m.exec(out)?.[1];
      if (!key) return;
      const url = /^export SITESYNC_URL=(\S+)$/m.exec(out)?.[1];
      const replicas = [...err.matchAll(/replica \d: \S+ \(pid (\d+), log (\S+)\)/g)].map((match) => ({
        pid: Number(match[1]),
        log: match[2]!,
      }));
      const haproxyPid = Number(/HAProxy \(pid (\d+)\)/.exec(err)?.[1]);
      if (url === undefined || replicas.length !== 2 || Number.isNaN(haproxyPid)) {
        // Output this file cannot read: stop the script (it removes everything) rather than leave it running.
        script.kill('SIGTERM');
        fail(new Error(`scripts/replicas.sh printed what this test cannot read:\n${out}\n${err}`));
        return;
      }
      const workDir = resolve(replicas[0]!.log, '..');
      done({ script, exited, url, key, replicas, haproxyPid, workDir, stderr: () => err, until });
    });
    exited.then((status) => fail(new Error(`scripts/replicas.sh stopped (${status}) before it was ready:\n${err}`)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** POST lines of the request log of one replica (the script ran them with --log-level info). */
function loggedWrites(log: string): { status: number; ip: string; scheme: string; account: number }[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.method === 'POST');
}

let database: TestDatabase | undefined;
let deployment: Deployment | undefined;
let startError: Error | undefined;
beforeAll(async () => {
  try {
    database = await createTestDatabase();
    const withPassword = database.url.replace('postgres://postgres@', `postgres://postgres:${DB_PASSWORD}@`);
    deployment = await startDeployment(withPassword, await freePort());
  } catch (error) {
    startError = error as Error; // every test fails with it: never skipped
  }
}, 60_000);
afterAll(async () => {
  if (deployment) {
    // Only reached by hand when the last test failed before stopping it.
    if (deployment.script.exitCode === null) deployment.script.kill('SIGTERM');
    await deployment.exited;
    for (const pid of [...deployment.replicas.map((replica) => replica.pid), deployment.haproxyPid]) {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  await database?.drop();
}, 30_000);

/** The running deployment, or the reason it could not start. */
function started(): Deployment {
  if (!deployment) throw startError ?? new Error('scripts/replicas.sh did not start');
  return deployment;
}

const SITES = `version: 1
websites:
  - domain: one.example
    privacy: public
  - domain: two.example
    favorite: true
  - domain: three.example
    exclude_ips: [203.0.113.7]
`;

describe('two replicas behind HAProxy (scripts/replicas.sh)', () => {
  it('the real CLI plans, applies, plans nothing and exports through the balancer', async () => {
    const { url, key } = started();
    const dir = tempDirWith('balanced', { 'websites.yaml': SITES });
    const env = { SITESYNC_URL: url, SITESYNC_API_KEY: key };
    const planned = await run(['plan', '--out', 'plan.json', '--detailed-exitcode', '--no-baseline'], dir, env);
    expect(planned.code).toBe(2);
    expect(planned.out).toMatch(/3 to create/);
    const applied = await run(['apply', 'plan.json', '--no-baseline'], dir, env);
    expect(applied.code).toBe(0);
    const again = await run(['plan', '--detailed-exitcode', '--no-baseline'], dir, env);
    expect(again.code).toBe(0);
    const exported = await run(['export', '--out', 'exported.yaml'], dir, env);
    expect(exported.code).toBe(0);
    const text = readFileSync(join(dir, 'exported.yaml'), 'utf8');
    for (const domain of ['one.example', 'two.example', 'three.example']) expect(text).toContain(domain);
    const reimport = await run(['plan', '-f', 'exported.yaml', '--detailed-exitcode', '--no-baseline'], dir, env);
    expect(reimport.code).toBe(0);
  }, 60_000);

  it('the 61st write of a key within a minute is 429, counted across both replicas', async () => {
    const { url, replicas } = started();
    // A fresh account (the real CLI, on the database), so the writes above do not count.
    const created = await run(['serve', 'accounts', 'create', 'throttled', '--db', database!.url], ROOT, {});
    expect(created.code).toBe(0);
    const key = created.out.trim();
    // Concurrently, so the 61 writes take a few seconds of the 60 s window. The client's own
    // X-Forwarded-For entry must be ignored: HAProxy appends the real address after it.
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    const writes = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        request(url, 'POST', '/api/v1/websites', { key, headers, form: { domain: `t${index}.example` } }),
      ),
    );
    expect(writes.map((response) => response.status)).toEqual(Array(60).fill(201));
    const refused = await request(url, 'POST', '/api/v1/websites', { key, form: { domain: 't60.example' } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Round robin spread the writes: each replica served part of the 60 (the logs are written
    // asynchronously: read until all 61 lines are there, or the test's timeout).
    let entries = replicas.map((replica) => loggedWrites(replica.log));
    const ofAccount = () => {
      const account = entries.flat().find((entry) => entry.status === 429)?.account;
      return entries.map((list) => list.filter((entry) => entry.account === account && account !== undefined));
    };
    while (ofAccount().flat().length < 61) {
      await new Promise((done) => setTimeout(done, 50));
      entries = replicas.map((replica) => loggedWrites(replica.log));
    }
    const served = ofAccount().map((list) => list.filter((entry) => entry.status === 201).length);
    expect(served[0]! + served[1]!).toBe(60);
    expect(Math.min(...served)).toBeGreaterThan(0);
    for (const entry of ofAccount().flat()) expect(entry).toMatchObject({ ip: '127.0.0.1', scheme: 'http' });
  }, 60_000);

  it('a replica killed with SIGKILL: the other keeps answering, the health check takes it out', async () => {
    const { url, key, replicas, until } = started();
    const [doomed, survivor] = replicas as [{ pid: number; log: string }, { pid: number; log: string }];
    process.kill(doomed.pid, 'SIGKILL');
    // Before the health check notices: a refused connection is retried on the other replica.
    const early = await Promise.all(
      Array.from({ length: 6 }, () => request(url, 'GET', '/api/v1/websites?per_page=5', { key })),
    );
    expect(early.map((response) => response.status)).toEqual(Array(6).fill(200));
    await until(/Server replicas\/replica1 is DOWN/);
    const late = await Promise.all(
      Array.from({ length: 6 }, () => request(url, 'GET', '/api/v1/websites?per_page=5', { key })),
    );
    expect(late.map((response) => response.status)).toEqual(Array(6).fill(200));
    expect(late[0]!.body.meta.total).toBe(3);
    expect((await request(url, 'GET', '/ready')).status).toBe(200);
    expect(alive(doomed.pid)).toBe(false);
    expect(alive(survivor.pid)).toBe(true);
  }, 60_000);

  it("no secret in the script's messages or the replicas' logs (the key is on stdout only, in its export line)", () => {
    const { stderr, replicas } = started();
    const logs = replicas.map((replica) => readFileSync(replica.log, 'utf8'));
    expect(logs.join('')).toMatch(/"method":"GET"/); // the requests of the tests above are in them
    for (const text of [stderr(), ...logs]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(DB_PASSWORD);
    }
    expect(logs[0]).toContain('postgres://postgres:***@');
  });

  it('the replicas listen on Unix sockets no other local user can open (issue 33, item 11)', async () => {
    const { replicas, workDir } = started();
    const sockets = replicas.map((replica) => {
      const socket = /listening on unix:([^,]+),/.exec(readFileSync(replica.log, 'utf8'))?.[1];
      expect(socket, 'a replica listening on a Unix socket, on no TCP port').toBeDefined();
      return socket!;
    });
    expect(statSync(join(workDir, 'sockets')).mode & 0o777).toBe(0o700);
    for (const socket of sockets) {
      expect(resolve(socket, '..')).toBe(join(workDir, 'sockets'));
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      expect(statSync(socket).uid).toBe(process.getuid!());
    }
    // As another user (root can be one): the socket cannot even be opened.
    if (process.getuid!() === 0) {
      const probe = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, '-e', CONNECT_PROBE, sockets[1]!], {
        encoding: 'utf8',
      });
      expect(probe.stdout.trim()).toBe('EACCES');
    }
  });

  it('200 wrong keys through HAProxy with varied X-Forwarded-For are throttled: HAProxy says who sent them', async () => {
    const { url } = started();
    const statuses: number[] = [];
    for (let index = 0; index < 200; index += 1) {
      const forged = { 'x-forwarded-for': `198.51.100.${index % 250}, 203.0.113.${index % 250}` };
      statuses.push(
        (await request(url, 'GET', '/api/v1/websites', { key: `wrong-key-${index}-0123456789`, headers: forged }))
          .status,
      );
    }
    // The failed-authentication throttle (30 a minute per client IP, shared by the replicas): the
    // last X-Forwarded-For entry is the one HAProxy appended, 127.0.0.1, whatever the client wrote.
    expect(statuses.filter((status) => status === 401).length).toBe(30);
    expect(statuses.slice(30)).toEqual(Array(170).fill(429));
    // Issue 33, item 8, through HAProxy: an odd method is the service's 405, not a 500.
    const odd = await sendRaw(url, 'QUERY /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(odd.status).toBe(405);
    expect(odd.body).toEqual({
      message: 'The QUERY method is not supported for route ready. Supported methods: GET, HEAD.',
    });
  }, 60_000);

  it('SIGTERM to the script stops HAProxy and the replicas and removes its directory', async () => {
    const { script, exited, replicas, haproxyPid, workDir } = started();
    expect(existsSync(workDir)).toBe(true);
    script.kill('SIGTERM');
    expect(await exited).toBe(143);
    for (const pid of [haproxyPid, ...replicas.map((replica) => replica.pid)]) expect(alive(pid)).toBe(false);
    expect(existsSync(workDir)).toBe(false);
  }, 30_000);
});
