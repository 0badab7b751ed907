/**
 * Reference-server benchmark (`npm run bench:server`): list (per_page=100 over
 * 10,000 sites) and create, 16 connections, ~10 s each, throttle off, loopback
 * only. The server runs in a child process so the load generator does not
 * share its event loop. Prints one line per scenario and checks the targets.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../src/server/index.js';
import { insertWebsites } from '../test/helpers/stored-website.js';
import { spawnServer } from './support.js';

const KEY = 'bench-key-0123456789abcdef';
const SITES = 10_000;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 16;
const HEADERS = { authorization: `Bearer ${KEY}`, accept: 'application/json' };

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

/** Child side: a file database seeded with SITES websites; prints the URL. */
async function runServer(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-'));
  const server = await startServer({ port: 0, db: join(dir, 'bench.db'), keys: [KEY], throttlePerMinute: 0 });
  await insertWebsites(
    server,
    KEY,
    Array.from({ length: SITES }, (_, index) => `seed-${index}.example`),
  );
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => {
    void server.close().then(() => rmSync(dir, { recursive: true, force: true }));
  });
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
  server: { url: string; pid: number },
  request: AutocannonRequest,
): Promise<AutocannonResult> {
  const cpuBefore = cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: HEADERS,
    requests: [request],
  });
  const { requests, latency } = result;
  process.stdout.write(
    `${name.padEnd(34)} ${requests.average.toFixed(0).padStart(6)} req/s  ` +
      `p50 ${latency.p50} ms  p99 ${latency.p99} ms  max ${latency.max} ms  ` +
      `(${requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`,
  );
  // Server CPU per request does not depend on what else the machine is running.
  const cpuAfter = cpuSeconds(server.pid);
  if (cpuBefore !== undefined && cpuAfter !== undefined && requests.total > 0) {
    process.stdout.write(`  server CPU ${(((cpuAfter - cpuBefore) * 1000) / requests.total).toFixed(3)} ms/request`);
  }
  process.stdout.write('\n');
  return result;
}

async function main(): Promise<void> {
  if (process.argv.includes('--server')) return runServer();
  const { child, url } = await spawnServer(fileURLToPath(import.meta.url));
  const server = { child, url, pid: child.pid! };
  try {
    const load = loadavg()[0]!.toFixed(1);
    process.stdout.write(
      `sitesync serve benchmark: ${CONNECTIONS} connections, ${DURATION_S} s per scenario, ${SITES} sites, ` +
        `${cpus().length} CPUs, load average ${load} before the run\n`,
    );
    const list = await scenario('GET list per_page=100 (page 1..100)', server, {
      method: 'GET',
      path: '/api/v1/websites?per_page=100&page=1',
      setupRequest: (() => {
        let page = 0;
        return (request) => ({ ...request, path: `/api/v1/websites?per_page=100&page=${(page++ % 100) + 1}` });
      })(),
    });
    const firstPage = await scenario('GET list per_page=100 (page 1)', server, {
      method: 'GET',
      path: '/api/v1/websites?per_page=100&page=1',
    });
    let counter = 0;
    const create = await scenario('POST create', server, {
      method: 'POST',
      path: '/api/v1/websites',
      // Per-request headers replace the shared ones in autocannon.
      headers: { ...HEADERS, 'content-type': 'application/x-www-form-urlencoded' },
      setupRequest: (request) => ({ ...request, body: `domain=bench-${counter++}.example&privacy=0&email=1` }),
    });
    const checks = [
      ['list (pages 1..100) >= 2000 req/s', list.requests.average >= 2000],
      ['list (page 1) >= 2000 req/s', firstPage.requests.average >= 2000],
      ['create >= 1000 req/s', create.requests.average >= 1000],
      ['p99 <= 25 ms', Math.max(list.latency.p99, firstPage.latency.p99, create.latency.p99) <= 25],
      ['no errors', [list, firstPage, create].every((result) => result.non2xx + result.errors === 0)],
    ] as const;
    for (const [label, ok] of checks) process.stdout.write(`${ok ? 'ok  ' : 'MISS'} ${label}\n`);
  } finally {
    server.child.kill('SIGTERM');
  }
}

await main();
