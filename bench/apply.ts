/**
 * Apply benchmark (`npx tsx bench/apply.ts`, part of `npm run bench`), loopback
 * only, bounded to ~50 s. The reference server runs in a child process so it
 * does not share an event loop with the client.
 *
 * 1. Throughput: 1,000 creates through `applyPlan` at parallelism 8 (throttle
 *    off), beside a bare undici POST loop at the same concurrency sending the
 *    same forms, in the same run; alternating rounds, judged on the median of
 *    the per-round ratios (each pair runs back to back under the same load).
 *    Goal: apply ≥ 0.8× the bare loop.
 * 2. Pacing: an apply against a server throttled to 600 requests/min (60 per
 *    6 s window, so the 30 s run crosses five windows) for 30 s.
 *    Goal: zero 429s and ≥ 95% of the allowed rate.
 */
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { createClient, type WebsitesApi } from '../src/api/index.js';
import { applyPlan } from '../src/apply/apply-plan.js';
import { Secret } from '../src/model/secret.js';
import { startServer } from '../src/server/index.js';
import { createPlan, desiredSites, spawnServer as spawnChild } from './support.js';

const KEY = 'bench-apply-key-0123456789abcdef';
const CREATES = 1_000;
const PARALLELISM = 8;
const WARMUP_ROUNDS = 3;
const ROUNDS = 9;
const PACING_MS = 30_000;
const PACING_WINDOW_MS = 6_000;
const PACING_PER_WINDOW = 60; // 600 per minute

/** Child side: an in-memory server; prints its URL. */
async function runServer(throttle: number, windowMs: number): Promise<void> {
  const server = await startServer({
    port: 0,
    db: ':memory:',
    keys: [KEY],
    throttlePerMinute: throttle,
    throttleWindowMs: windowMs,
  });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
}

async function spawnServer(throttle: number, windowMs: number) {
  const { child, url } = await spawnChild(fileURLToPath(import.meta.url), [String(throttle), String(windowMs)]);
  return { url, stop: () => child.kill('SIGTERM') };
}

function client(url: string, options: { perMinute: number; windowMs?: number }): WebsitesApi {
  return createClient({
    url,
    apiKey: new Secret(KEY),
    concurrency: PARALLELISM,
    rateLimitPerMinute: options.perMinute,
    ...(options.windowMs !== undefined && { rateLimitWindowMs: options.windowMs }),
  });
}

/** The baseline: the same create forms, POSTed by 8 workers over 8 sockets, bodies parsed, nothing else. */
async function bareLoop(url: string, prefix: string): Promise<number> {
  const pool = new Pool(url, { connections: PARALLELISM });
  const headers = {
    authorization: `Bearer ${KEY}`,
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < CREATES) {
      const i = next++;
      const body = `domain=${prefix}-${i}.example.com&privacy=1&email=0&exclude_bots=1&exclude_params=&exclude_ips=`;
      const response = await pool.request({ method: 'POST', path: '/api/v1/websites', headers, body });
      JSON.parse(await response.body.text());
      if (response.statusCode !== 201) throw new Error(`bare POST → ${response.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLELISM }, worker));
  const elapsed = performance.now() - started;
  await pool.close();
  return elapsed;
}

async function applyRound(url: string, prefix: string): Promise<{ ms: number; requests: number }> {
  const sites = desiredSites(prefix, CREATES);
  const planned = createPlan(sites); // planning is the planner benchmark's business, not timed here
  const desired = new Map(sites.map((s) => [s.domain, s]));
  const api = client(url, { perMinute: 0 });
  try {
    const started = performance.now();
    const result = await applyPlan(planned, desired, api, {
      parallelism: PARALLELISM,
      verify: false,
    });
    const ms = performance.now() - started;
    if (result.counts.applied !== CREATES) throw new Error(`applied ${result.counts.applied} of ${CREATES}`);
    return { ms, requests: result.requests };
  } finally {
    await api.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const perSecond = (ms: number) => Math.round((CREATES * 1000) / ms);

async function throughput(): Promise<boolean> {
  const server = await spawnServer(0, 60_000);
  try {
    // JIT and server warm-up: the first rounds of either side are several times slower.
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      await bareLoop(server.url, `warm-bare-${round}`);
      await applyRound(server.url, `warm-apply-${round}`);
    }
    const bare: number[] = [];
    const apply: number[] = [];
    let requests = 0;
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(await bareLoop(server.url, `bare-${round}`));
      const result = await applyRound(server.url, `apply-${round}`);
      apply.push(result.ms);
      requests = result.requests;
    }
    // Each round's two runs are back to back, so a pair's ratio is fair even when the machine's load drifts.
    const ratio = median(bare.map((ms, i) => ms / apply[i]!));
    const best = Math.min(...bare) / Math.min(...apply);
    console.log(
      `| ${CREATES} creates, parallelism ${PARALLELISM} | median of ${ROUNDS} | creates/s | best | creates/s |`,
    );
    console.log('|---|---|---|---|---|');
    for (const [name, times] of [
      ['bare undici POST loop', bare],
      ['sitesync applyPlan', apply],
    ] as const) {
      const [mid, low] = [median(times), Math.min(...times)];
      console.log(
        `| ${name} | ${Math.round(mid)} ms | ${perSecond(mid)} | ${Math.round(low)} ms | ${perSecond(low)} |`,
      );
    }
    console.log(`\napply requests: ${requests} for ${CREATES} creates`);
    console.log(
      `apply / bare throughput: median of per-round ratios ${ratio.toFixed(2)}×, best vs best ${best.toFixed(2)}× (goal ≥ 0.80×) ${ratio >= 0.8 ? 'PASS' : 'FAIL'}`,
    );
    return ratio >= 0.8;
  } finally {
    server.stop();
  }
}

async function pacing(): Promise<boolean> {
  const server = await spawnServer(PACING_PER_WINDOW, PACING_WINDOW_MS);
  const api = client(server.url, { perMinute: PACING_PER_WINDOW, windowMs: PACING_WINDOW_MS });
  try {
    const sites = desiredSites('paced', 2_000);
    const stop = AbortSignal.timeout(PACING_MS);
    const started = performance.now();
    const result = await applyPlan(createPlan(sites), new Map(sites.map((s) => [s.domain, s])), api, {
      parallelism: PARALLELISM,
      signal: stop,
      verify: false,
    });
    const seconds = (performance.now() - started) / 1000;
    const allowed = (PACING_PER_WINDOW * seconds * 1000) / PACING_WINDOW_MS;
    const share = api.stats.requests / allowed;
    const ok = api.stats.throttled === 0 && share >= 0.95;
    console.log(`\n| pacing: 600/min (${PACING_PER_WINDOW} per ${PACING_WINDOW_MS / 1000} s window) | value |`);
    console.log('|---|---|');
    console.log(`| run | ${seconds.toFixed(1)} s (stopped by Ctrl-C-equivalent abort) |`);
    console.log(`| requests sent | ${api.stats.requests} (changes applied ${result.counts.applied}) |`);
    console.log(`| allowed in that time | ${Math.floor(allowed)} |`);
    console.log(`| 429 answers | ${api.stats.throttled} |`);
    console.log(`| share of the allowed rate | ${(share * 100).toFixed(1)}% |`);
    console.log(`\npacing: zero 429s and ≥ 95% of the allowed rate ${ok ? 'PASS' : 'FAIL'}`);
    return ok;
  } finally {
    await api.close();
    server.stop();
  }
}

if (process.argv[2] === '--server') {
  await runServer(Number(process.argv[3]), Number(process.argv[4]));
} else {
  const fast = await throughput();
  const paced = await pacing();
  process.exitCode = fast && paced ? 0 : 1;
}
