/**
 * Reference-server benchmark (`npm run bench:server`): at each size (10k, 100k
 * and 1M sites by default; BENCH_SIZES=10000,100000 to choose), list page 1, a
 * middle page, search, favourite filter, show, filtered middle pages (a search
 * matching every site, the favourites), create and update, each with 16
 * connections for BENCH_DURATION seconds (default 3), beside a bare fastify
 * hello-world in the same run as the ceiling. The query scenarios are also run
 * with one connection (the latency one request sees), and, at the largest size,
 * a client looping searches runs beside a client reading by id (fairness). The
 * server runs in a child process so the load generator does not share its
 * event loop. Prints one line per scenario and checks the targets.
 *
 * Each size runs on SQLite and then on PostgreSQL (BENCH_BACKENDS=sqlite,postgres;
 * BENCH_PG_SIZES to give PostgreSQL other sizes): a throwaway PostgreSQL 15
 * cluster is started for the run (test/helpers/postgres-cluster.ts, default
 * settings, fsync on), or BENCH_POSTGRES_URL=postgres://user@host:port names a
 * server where a scratch database is created and dropped.
 *
 * Then two replicas on one PostgreSQL database behind HAProxy (scripts/haproxy.cfg),
 * beside one replica behind the same HAProxy: create (into the bench account, and over 16
 * accounts) and list page 1, 16 connections,
 * at BENCH_REPLICA_SITES sites (default the smallest PostgreSQL size). Every
 * server child is stopped and awaited before the cluster stops.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { startServer } from '../src/server/index.js';
import { startThrowawayCluster } from '../test/helpers/postgres-cluster.js';
import { haproxyPath, startHaproxy } from './haproxy.js';
import { spawnServer } from './support.js';

const KEY = 'bench-key-0123456789abcdef';
/**
 * The replica rows also create across 16 accounts (one key each) beside the one bench account: until
 * issue 27 one account's creates queued on its row (docs/benchmarks.md), so both are measured.
 */
const TENANT_KEYS = Array.from({ length: 16 }, (_, index) => `bench-tenant-${index}-0123456789abcdef`);
const REPLICA_KEYS = [KEY, ...TENANT_KEYS];
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
type Backend = 'sqlite' | 'postgres';
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'sqlite,postgres').split(',') as Backend[];
const PG_SIZES = process.env.BENCH_PG_SIZES ? process.env.BENCH_PG_SIZES.split(',').map(Number) : SIZES;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 3);
const CONNECTIONS = 16;
const HEADERS = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
/** Every 100th seeded site is a favourite. */
const FAVOURITE_EVERY = 100;

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
}
interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations: load it through require with the shape used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/**
 * Child side: a file database seeded with `sites` websites in one account (one
 * INSERT … SELECT in one transaction: a million rows in seconds, the triggers
 * keeping the count and the search index), then the server; prints the URL.
 */
async function runServer(sites: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-'));
  const db = join(dir, 'bench.db');
  const seeding = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
  const accountId = (await seeding.store.listAccounts())[0]!.id;
  await seeding.close();
  const seed = new Database(db);
  seed
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @sites - 1)
       INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, favorited_at, created_at, updated_at)
       SELECT @accountId, 'seed-' || i || '.example', 1, 0, 1,
         iif(i % ${FAVOURITE_EVERY} = 0, '2024-01-01T00:00:00', NULL),
         '2024-01-01T00:00:00.000000Z', '2024-01-01T00:00:00.000000Z' FROM n`,
    )
    .run({ sites, accountId });
  seed.close();
  const server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => {
    void server.close().then(() => rmSync(dir, { recursive: true, force: true }));
  });
}

/** Runs `work` on one connection to `url`. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Child side, PostgreSQL: a scratch database on the cluster at `base`, the schema
 * and the key made by a first server start, the same sites seeded in one statement
 * (the per-row count trigger off, the count set once), ANALYZE, then the server.
 */
async function runPostgresServer(sites: number, base: string): Promise<void> {
  const name = `sitesync_bench_${process.pid}`;
  await withClient(`${base}/postgres`, (admin) => admin.query(`CREATE DATABASE ${name}`));
  const db = `${base}/${name}`;
  const seeding = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
  const accountId = (await seeding.store.listAccounts())[0]!.id;
  await seeding.close();
  await withClient(db, async (client) => {
    await client.query('ALTER TABLE websites DISABLE TRIGGER websites_count');
    await client.query(
      `INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, favorited_at, created_at, updated_at)
       SELECT $1, 'seed-' || i || '.example', 1, 0, 1,
         CASE WHEN i % ${FAVOURITE_EVERY} = 0 THEN '2024-01-01T00:00:00' END,
         '2024-01-01T00:00:00.000000Z', '2024-01-01T00:00:00.000000Z' FROM generate_series(0, $2 - 1) i`,
      [accountId, sites],
    );
    await client.query('ALTER TABLE websites ENABLE TRIGGER websites_count');
    await client.query('UPDATE accounts SET website_count = $2 WHERE id = $1', [accountId, sites]);
    await client.query('VACUUM ANALYZE websites');
  });
  const server = await startServer({ port: 0, db, keys: REPLICA_KEYS, throttlePerMinute: 0, poolSize: 16 });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => {
    void server
      .close()
      .then(() => withClient(`${base}/postgres`, (admin) => admin.query(`DROP DATABASE ${name} WITH (FORCE)`)));
  });
}

/** Child side: one more replica on the database of a running `runPostgresServer`. */
async function runReplica(db: string): Promise<void> {
  const server = await startServer({ port: 0, db, keys: REPLICA_KEYS, throttlePerMinute: 0, poolSize: 16 });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
}

/** SIGTERM, then wait for the child to be gone (its pool closed, its database dropped). */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  return exited;
}

/** Child side: the ceiling, a bare fastify answering a small JSON object. */
async function runHello(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stdout.write(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
  process.once('SIGTERM', () => void app.close());
}

/** CPU seconds (user + system) the server process has used; undefined off Linux. */
function cpuSeconds(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  // Fields 14 and 15 (utime, stime) in clock ticks, counted after the ")" that ends the command name.
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function scenario(
  name: string,
  server: { url: string; pid?: number },
  request: AutocannonRequest,
  connections = CONNECTIONS,
): Promise<AutocannonResult> {
  const cpuBefore = server.pid === undefined ? undefined : cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url,
    connections,
    duration: DURATION_S,
    headers: HEADERS,
    requests: [request],
  });
  const { requests, latency } = result;
  process.stdout.write(
    `${name.padEnd(44)} ${requests.average.toFixed(0).padStart(6)} req/s  ` +
      `p50 ${latency.p50} ms  p99 ${latency.p99} ms  max ${latency.max} ms  ` +
      `(${requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`,
  );
  // Server CPU per request does not depend on what else the machine is running.
  const cpuAfter = server.pid === undefined ? undefined : cpuSeconds(server.pid);
  if (cpuBefore !== undefined && cpuAfter !== undefined && requests.total > 0) {
    process.stdout.write(`  server CPU ${(((cpuAfter - cpuBefore) * 1000) / requests.total).toFixed(3)} ms/request`);
  }
  process.stdout.write('\n');
  return result;
}

/** A path per request from `next(i)`. */
const cycling = (next: (i: number) => string): AutocannonRequest => {
  let i = 0;
  return { method: 'GET', path: next(0), setupRequest: (request) => ({ ...request, path: next(i++) }) };
};

/** Pseudo-random but repeatable numbers below `n`. */
const spread = (i: number, n: number) => (i * 7919 + 13) % n;

async function measureSize(sites: number, checks: [string, boolean][], postgres?: { base: string }): Promise<void> {
  const started = Date.now();
  const args = ['--sites', String(sites), ...(postgres ? ['--postgres', postgres.base] : [])];
  const { child, url } = await spawnServer(fileURLToPath(import.meta.url), args);
  const server = { child, url, pid: child.pid! };
  try {
    process.stdout.write(
      `\n${sites.toLocaleString('en')} sites on ${postgres ? 'PostgreSQL' : 'SQLite'} ` +
        `(seeded in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    const middle = Math.max(1, Math.floor(sites / 100 / 2));
    const favouriteMiddle = Math.max(1, Math.floor(sites / FAVOURITE_EVERY / 100 / 2));
    const queries: [string, AutocannonRequest][] = [
      ['list per_page=100, page 1', { method: 'GET', path: '/api/v1/websites?per_page=100' }],
      [
        `list per_page=100, middle page (${middle})`,
        { method: 'GET', path: `/api/v1/websites?per_page=100&page=${middle}` },
      ],
      // seed-<4 digits> matches ~1 site in 10k, 11 in 100k, 111 in 1M.
      ['search (substring, varied)', cycling((i) => `/api/v1/websites?search=seed-${1000 + spread(i, 9000)}`)],
      ['favourite filter, page 1', { method: 'GET', path: '/api/v1/websites?favorite=1' }],
      ['show (GET by id)', cycling((i) => `/api/v1/websites/${1 + spread(i, sites)}`)],
      // Filtered deep pages (page anchors): a search that every site matches, and the favourites (1 in 100).
      [
        `search matching all, middle page (${middle})`,
        { method: 'GET', path: `/api/v1/websites?search=seed-&per_page=100&page=${middle}` },
      ],
      [
        `favourite filter, middle page (${favouriteMiddle})`,
        { method: 'GET', path: `/api/v1/websites?favorite=1&per_page=100&page=${favouriteMiddle}` },
      ],
    ];
    const single: Record<string, number> = {};
    for (const [name, request] of queries) {
      await scenario(name, server, request);
      single[name] = (await scenario(`  same, 1 connection`, server, request, 1)).latency.p50;
    }
    await scenario('create', server, createRequest('bench'));
    let updates = 0;
    await scenario('update (PATCH)', server, {
      method: 'PATCH',
      path: '/api/v1/websites/1',
      headers: { ...HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
      setupRequest: (request) => ({
        ...request,
        path: `/api/v1/websites/${1 + spread(updates, sites)}`,
        body: `email=${updates++ % 2}`,
      }),
    });
    // The targets are SQLite's; PostgreSQL's rows are figures (the database shares the 2 cores with the server).
    if (!postgres && sites === Math.max(...SIZES)) {
      const label = sites.toLocaleString('en');
      for (const name of [queries[1]![0], queries[2]![0], queries[3]![0], queries[5]![0], queries[6]![0]]) {
        checks.push([`${label}: ${name} median <= 5 ms (1 connection: ${single[name]} ms)`, single[name]! <= 5]);
      }
      // Fairness: 8 connections looping searches beside 2 reading by id.
      const [, reads] = await Promise.all([
        autocannon({ url, connections: 8, duration: DURATION_S, headers: HEADERS, requests: [queries[2]![1]] }),
        autocannon({ url, connections: 2, duration: DURATION_S, headers: HEADERS, requests: [queries[4]![1]] }),
      ]);
      process.stdout.write(
        `${'show beside 8 connections searching'.padEnd(44)} ${reads.requests.average.toFixed(0).padStart(6)} req/s  p50 ${reads.latency.p50} ms  p99 ${reads.latency.p99} ms\n`,
      );
      checks.push([
        `${label}: show p99 beside a searching client <= 25 ms (${reads.latency.p99} ms)`,
        reads.latency.p99 <= 25,
      ]);
    }
  } finally {
    await stopChild(server.child);
  }
}

/** Creates with a new domain each; `keys` in turn (default the one bench key). */
const createRequest = (prefix: string, keys: readonly string[] = [KEY]): AutocannonRequest => {
  let counter = 0;
  // Per-request headers replace the shared ones in autocannon.
  const headers = (key: string) => ({ ...HEADERS, authorization: `Bearer ${key}`, 'content-type': FORM });
  return {
    method: 'POST',
    path: '/api/v1/websites',
    headers: headers(keys[0]!),
    setupRequest: (request) => {
      const index = counter++;
      const body = `domain=${prefix}-${index}.example&privacy=0&email=1`;
      return { ...request, headers: headers(keys[index % keys.length]!), body };
    },
  };
};
const FORM = 'application/x-www-form-urlencoded';

/** One replica behind HAProxy, then two replicas on the same database behind it: create and list. */
async function measureReplicas(sites: number, base: string, checks: [string, boolean][]): Promise<void> {
  if (!haproxyPath()) {
    process.stdout.write('\ntwo replicas behind HAProxy: not measured (haproxy is not installed)\n');
    return;
  }
  const first = await spawnServer(fileURLToPath(import.meta.url), ['--sites', String(sites), '--postgres', base]);
  const children = [first.child];
  try {
    const db = `${base}/sitesync_bench_${first.child.pid}`;
    const second = await spawnServer(fileURLToPath(import.meta.url), ['--replica', db]);
    children.push(second.child);
    process.stdout.write(`\n${sites.toLocaleString('en')} sites on PostgreSQL, replicas behind HAProxy\n`);
    const results: Record<string, AutocannonResult> = {};
    const tenants: Record<string, AutocannonResult> = {};
    for (const [label, urls] of [
      ['1 replica', [first.url]],
      ['2 replicas', [first.url, second.url]],
    ] as const) {
      const balancer = await startHaproxy([...urls]);
      try {
        const lb = { url: balancer.url }; // no CPU figure: the work is spread over several processes
        results[label] = await scenario(`create, ${label} via HAProxy`, lb, createRequest(`lb${urls.length}`));
        tenants[label] = await scenario(
          `create, 16 accounts, ${label} via HAProxy`,
          lb,
          createRequest(`lb${urls.length}-tenants`, TENANT_KEYS),
        );
        await scenario(`list page 1, ${label} via HAProxy`, lb, {
          method: 'GET',
          path: '/api/v1/websites?per_page=100',
        });
      } finally {
        await balancer.stop();
      }
    }
    const one = results['1 replica']!;
    const two = results['2 replicas']!;
    const ratio = two.requests.average / one.requests.average;
    checks.push([`PostgreSQL: 2 replicas create ≥ 1.5× of 1 replica (${ratio.toFixed(2)}×)`, ratio >= 1.5]);
    checks.push([`PostgreSQL: 2 replicas create p99 ≤ 50 ms (${two.latency.p99} ms)`, two.latency.p99 <= 50]);
    const spreadRatio = tenants['2 replicas']!.requests.average / tenants['1 replica']!.requests.average;
    checks.push([
      `PostgreSQL: 2 replicas create over 16 accounts ≥ 1.5× of 1 replica (${spreadRatio.toFixed(2)}×)`,
      spreadRatio >= 1.5,
    ]);
  } finally {
    // The replica first: the seeding child drops the database when it stops.
    for (const child of children.reverse()) await stopChild(child);
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--hello')) return runHello();
  const argument = (name: string) => process.argv[process.argv.indexOf(name) + 1]!;
  if (process.argv.includes('--server')) {
    const sites = Number(argument('--sites'));
    if (process.argv.includes('--replica')) return runReplica(argument('--replica'));
    return process.argv.includes('--postgres') ? runPostgresServer(sites, argument('--postgres')) : runServer(sites);
  }
  const load = loadavg()[0]!.toFixed(1);
  process.stdout.write(
    `sitesync serve benchmark: ${CONNECTIONS} connections, ${DURATION_S} s per scenario, sizes ${SIZES.join(', ')}, ` +
      `${cpus().length} CPUs, load average ${load} before the run\n`,
  );
  const hello = await spawnServer(fileURLToPath(import.meta.url), ['--hello']);
  try {
    await scenario(
      'ceiling: bare fastify hello-world',
      { url: hello.url, pid: hello.child.pid! },
      { method: 'GET', path: '/' },
    );
  } finally {
    await stopChild(hello.child);
  }
  const checks: [string, boolean][] = [];
  const cluster =
    BACKENDS.includes('postgres') && !process.env.BENCH_POSTGRES_URL ? await startThrowawayCluster() : undefined;
  const base = process.env.BENCH_POSTGRES_URL ?? cluster?.url;
  try {
    for (const sites of [...new Set([...SIZES, ...PG_SIZES])].sort((a, b) => a - b)) {
      if (BACKENDS.includes('sqlite') && SIZES.includes(sites)) await measureSize(sites, checks);
      if (base && PG_SIZES.includes(sites)) await measureSize(sites, checks, { base });
    }
    if (base) await measureReplicas(Number(process.env.BENCH_REPLICA_SITES ?? Math.min(...PG_SIZES)), base, checks);
  } finally {
    cluster?.stop();
  }
  process.stdout.write('\n');
  for (const [label, ok] of checks) process.stdout.write(`${ok ? 'ok  ' : 'MISS'} ${label}\n`);
}

await main();
