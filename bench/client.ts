/**
 * Client benchmark (`npx tsx bench/client.ts`, part of `npm run bench`): a full
 * listing of 10,000 sites from a reference server in a child process
 * (throttle off, loopback only). Reports requests used (goal ⌈N/100⌉ = 100),
 * wall time against a bare undici loop doing the same GETs in the same run
 * (goal ≤ 1.5×), and the client's peak memory. Medians of a few rounds,
 * alternating, so neither side gets a warmer server. Bounded to ~20 s.
 */
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Pool } from 'undici';
import { createClient } from '../src/api/index.js';
import { Secret } from '../src/model/secret.js';
import { startServer } from '../src/server/index.js';
import { insertWebsites } from '../test/helpers/stored-website.js';
import { median, spawnServer } from './support.js';

const KEY = 'bench-key-0123456789abcdef';
const SITES = 10_000;
const ROUNDS = 9;
const PAGES = Math.ceil(SITES / 100);

/** Child side: an in-memory server seeded with SITES websites; prints its URL. */
async function runServer(): Promise<void> {
  const server = await startServer({ port: 0, db: ':memory:', keys: [KEY], throttlePerMinute: 0 });
  const domains = Array.from({ length: SITES }, (_, i) => `site-${i + 1}.example.com`);
  await insertWebsites(server, KEY, domains, { excludeIps: '10.0.0.1\r\n10.0.0.2' });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
}

/** The baseline: the same 100 GETs, one after another, JSON-parsed, nothing else. */
async function bareLoop(url: string): Promise<number> {
  const pool = new Pool(url, { connections: 1 });
  const headers = { authorization: `Bearer ${KEY}`, accept: 'application/json' };
  let count = 0;
  for (let page = 1; page <= PAGES; page++) {
    const response = await pool.request({
      method: 'GET',
      path: `/api/v1/websites?sort_by=id&sort=asc&per_page=100&page=${page}`,
      headers,
    });
    count += ((await response.body.json()) as { data: unknown[] }).data.length;
  }
  await pool.close();
  return count;
}

async function clientListing(url: string, concurrency: number): Promise<{ count: number; requests: number }> {
  const client = createClient({ url, apiKey: new Secret(KEY), rateLimitPerMinute: 0, concurrency });
  const sites = await client.listWebsites();
  await client.close();
  return { count: sites.length, requests: client.stats.requests };
}

/** A targeted plan's listing (--only one exact domain): one search instead of every page. */
async function targetedListing(url: string): Promise<{ count: number; requests: number }> {
  const client = createClient({ url, apiKey: new Secret(KEY), rateLimitPerMinute: 0 });
  const sites = await client.listWebsitesNamed([`site-${SITES / 2}.example.com`]);
  await client.close();
  return { count: sites.length, requests: client.stats.requests };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await run();
  return { ms: performance.now() - started, result };
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Peak heap and RSS above a collected baseline while `run` works, sampled every 5 ms. */
async function peakMemory(run: () => Promise<unknown>): Promise<{ heapMb: number; rssMb: number }> {
  gc();
  const base = process.memoryUsage();
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed - base.heapUsed);
    rss = Math.max(rss, now.rss - base.rss);
  };
  const timer = setInterval(sample, 5);
  await run();
  sample();
  clearInterval(timer);
  return { heapMb: heap / 2 ** 20, rssMb: rss / 2 ** 20 };
}

async function main(): Promise<void> {
  if (process.argv.includes('--server')) return runServer();
  const { child, url } = await spawnServer(fileURLToPath(import.meta.url));
  try {
    await bareLoop(url); // warm-up: JIT, server caches, sockets
    await clientListing(url, 1);
    const times = { bare: [] as number[], sequential: [] as number[], concurrent: [] as number[] };
    let requests = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate who goes first, so none of them always meets a warmer (or busier) server.
      const runs: (() => Promise<unknown>)[] = [
        () => bareLoop(url),
        () => clientListing(url, 1),
        () => clientListing(url, 4),
      ];
      const order = [0, 1, 2].map((i) => (i + round) % 3);
      const results: { ms: number; result: unknown }[] = [];
      for (const index of order) results[index] = await timed(runs[index]!);
      const [bare, sequential, concurrent] = results as [
        { ms: number; result: number },
        { ms: number; result: { count: number; requests: number } },
        { ms: number; result: { count: number; requests: number } },
      ];
      if (bare.result !== SITES || sequential.result.count !== SITES || concurrent.result.count !== SITES) {
        throw new Error('a listing came back incomplete');
      }
      times.bare.push(bare.ms);
      times.sequential.push(sequential.ms);
      times.concurrent.push(concurrent.ms);
      requests = sequential.result.requests;
    }
    const memory = await peakMemory(() => clientListing(url, 4));
    const targeted = await timed(() => targetedListing(url));
    if (targeted.result.count !== 1) throw new Error('the targeted listing did not find its one site');
    const bare = median(times.bare);
    const row = (name: string, ms: number, used: number | string) =>
      `| ${name.padEnd(30)} | ${String(used).padStart(8)} | ${ms.toFixed(0).padStart(7)} | ${(ms / bare).toFixed(2).padStart(9)} |`;
    console.log(`client: full listing of ${SITES} sites, median of ${ROUNDS} rounds (loopback, throttle off)\n`);
    console.log('| run                            | requests | wall ms | × bare    |');
    console.log('|--------------------------------|----------|---------|-----------|');
    console.log(row('bare undici loop (sequential)', bare, PAGES));
    console.log(row('client, concurrency 1', median(times.sequential), requests));
    console.log(row('client, concurrency 4', median(times.concurrent), requests));
    console.log(row('client, --only 1 exact domain', targeted.ms, targeted.result.requests));
    console.log(
      `\npeak memory of one client listing: heap +${memory.heapMb.toFixed(1)} MB, RSS +${memory.rssMb.toFixed(1)} MB`,
    );
    const ratio = median(times.sequential) / bare;
    const one = targeted.result.requests;
    console.log(`${one === 1 ? 'ok  ' : 'MISS'} a plan of 1 site (--only) on ${SITES} sites: ${one} request (goal 1)`);
    console.log(`${requests <= PAGES ? 'ok  ' : 'MISS'} requests ${requests} (goal ${PAGES})`);
    console.log(
      `${ratio <= 1.5 ? 'ok  ' : 'MISS'} wall time ${ratio.toFixed(2)}× the bare loop at the same concurrency (goal ≤ 1.5×)`,
    );
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
