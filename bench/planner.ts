/**
 * Planner benchmark (`npx tsx bench/planner.ts`, part of `npm run bench`):
 * 1. the pure planner on 100,000 desired and 100,000 live sites (goal ≤ 0.3 s);
 * 2. the real CLI: `tsc -p tsconfig.build.json`, then `sitesync plan` from
 *    dist/ under plain node (a tiny wrapper that calls `main` as
 *    bin/sitesync.js does and reports `process.resourceUsage().maxRSS`), three
 *    times, for 10,000 live sites in a reference server in another process
 *    (throttle off, loopback only): requests used (goal 100), wall time, peak
 *    RSS of the CLI process (goal ≤ 150 MB). Bounded to well under a minute.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PlanPolicy } from '../src/model/plan.js';
import { type DesiredWebsite, defaultSettings, type LiveWebsite } from '../src/model/website.js';
import { plan, policyFromConfig } from '../src/plan/index.js';
import { median, spawnServer } from './support.js';

const KEY = 'bench-key-planner-0123456789';
const PURE_SITES = 100_000;
const CLI_SITES = 10_000;
const ROUNDS = 7;
const CLI_ROUNDS = 3;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const domain = (i: number): string => `site-${i}.example.com`;

/** 100,000 sites: 95% in sync, 3% drifted, 1% to create, 1% to prune; lists as the wire decoder leaves them. */
function pureInput(): { desired: DesiredWebsite[]; live: LiveWebsite[]; policy: PlanPolicy } {
  const desired: DesiredWebsite[] = [];
  const live: LiveWebsite[] = [];
  for (let i = 0; i < PURE_SITES; i++) {
    const settings = { ...defaultSettings(), excludeIps: ['10.0.0.1', '10.0.0.2'], excludeParams: ['ref', 'utm'] };
    if (i % 100 !== 99) desired.push({ domain: domain(i), settings, ignoreChanges: [] });
    if (i % 100 !== 98) {
      const drifted = i % 100 < 3 ? { privacy: 'public' as const, excludeIps: ['10.0.0.1'] } : {};
      live.push({ id: i + 1, domain: domain(i), settings: { ...settings, ...drifted }, hasPassword: false });
    }
  }
  const policy = policyFromConfig({
    prune: true,
    manage: { include: ['*.example.com'], exclude: ['*.staging.example.com'] },
    protect: ['www.example.com'],
    limits: { maxDeletes: 10_000, maxChangePercent: 100 },
  });
  return { desired, live, policy };
}

function benchPure(): void {
  const input = pureInput();
  const times: number[] = [];
  let summary = '';
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    const result = plan(input.desired, input.live, input.policy);
    times.push(performance.now() - start);
    summary = `${result.summary.create} creates, ${result.summary.update} updates, ${result.summary.delete} deletes`;
  }
  console.log(
    `| pure planner, ${PURE_SITES.toLocaleString('en')} sites (${summary}) | first ${times[0]!.toFixed(0)} ms, median of ${ROUNDS} ${median(times).toFixed(0)} ms | goal ≤ 300 ms |`,
  );
}

/** websites.yaml for the CLI run: every live site listed, 5% of them drifted (email on). */
function cliConfig(dir: string): string {
  const lines = ['version: 1', 'defaults:', '  exclude_ips: [10.0.0.1, 10.0.0.2]', 'websites:'];
  for (let i = 1; i <= CLI_SITES; i++) lines.push(`  - domain: ${domain(i)}${i % 20 === 0 ? '\n    email: true' : ''}`);
  const file = join(dir, 'websites.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Server side (a child process): an in-memory reference server seeded with CLI_SITES sites; prints its URL. */
async function runServer(): Promise<void> {
  const { startServer } = await import('../src/server/index.js');
  const { insertWebsites } = await import('../test/helpers/stored-website.js');
  const server = await startServer({ port: 0, db: ':memory:', keys: [KEY], throttlePerMinute: 0 });
  const domains = Array.from({ length: CLI_SITES }, (_, i) => domain(i + 1));
  await insertWebsites(server, KEY, domains, { excludeIps: '10.0.0.2\r\n10.0.0.1' });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
}

/**
 * The measured process: plain node running the built CLI (dist/, as
 * bin/sitesync.js does), nothing else loaded; prints one JSON line of figures.
 */
const planWrapper = (dist: string) => `
import { captureIo } from '${dist}/cli/io.js';
import { main } from '${dist}/cli/main.js';
const [url, file, key] = process.argv.slice(2);
const baseRssMb = process.resourceUsage().maxRSS / 1024;
const io = captureIo({ env: { SITESYNC_API_KEY: key } });
const start = performance.now();
const code = await main(['plan', '-f', file, '--url', url, '--rate-limit', '0', '--format', 'json', '--log-level', 'debug'], io);
const ms = performance.now() - start;
const peakRssMb = process.resourceUsage().maxRSS / 1024;
const requests = /listed (\\d+) websites in (\\d+) requests/.exec(io.err());
const { summary } = JSON.parse(io.out());
process.stdout.write(JSON.stringify({ code, ms, listed: Number(requests?.[1]), requests: Number(requests?.[2]), summary, peakRssMb, baseRssMb }) + '\\n');
`;

/** Compiles src/ to dist/ (what the published CLI runs). */
function build(): void {
  const result = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npx tsc -p tsconfig.build.json failed');
}

async function runPlan(url: string, file: string, wrapper: string) {
  const child = spawn(process.execPath, [wrapper, url, file, KEY], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`plan child exited with ${code}: ${output}`);
  return JSON.parse(output.trim().split('\n').at(-1)!);
}

async function benchCli(): Promise<void> {
  build();
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-'));
  const wrapper = join(dir, 'plan.mjs');
  writeFileSync(wrapper, planWrapper(pathToFileURL(join(ROOT, 'dist')).href));
  const { child: server, url } = await spawnServer(fileURLToPath(import.meta.url));
  try {
    const file = cliConfig(dir);
    const runs = [];
    for (let round = 0; round < CLI_ROUNDS; round++) runs.push(await runPlan(url, file, wrapper));
    const figures = runs.at(-1)!;
    const { summary } = figures;
    const peaks = runs.map((run) => run.peakRssMb.toFixed(0)).join(' / ');
    const times = runs.map((run) => run.ms.toFixed(0)).join(' / ');
    console.log(
      `| sitesync plan (built CLI, plain node), ${CLI_SITES.toLocaleString('en')} live sites (${summary.update} updates, ${summary.unchanged} unchanged; exit ${figures.code}) | ${times} ms, ${figures.requests} requests, peak RSS ${peaks} MB (${figures.baseRssMb.toFixed(0)} MB before the command) | goal 100 requests, ≤ 150 MB |`,
    );
    const worst = Math.max(...runs.map((run) => run.peakRssMb));
    console.log(
      `\n${worst <= 150 ? 'ok  ' : 'MISS'} peak RSS ${worst.toFixed(0)} MB (worst of ${CLI_ROUNDS}; goal ≤ 150 MB)`,
    );
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--server') {
  await runServer();
} else {
  console.log('| benchmark | result | goal |');
  console.log('| --- | --- | --- |');
  benchPure();
  await benchCli();
}
