/**
 * Planner benchmark (`npx tsx bench/planner.ts`, part of `npm run bench`):
 * 1. the pure planner on 100,000 desired and 100,000 live sites (goal ≤ 0.3 s);
 * 2. `sitesync plan` run in-process (in a child, so its memory is its own) for
 *    10,000 live sites against a reference server in this process, throttle
 *    off, loopback only: requests used (goal 100), wall time, peak RSS (goal
 *    ≤ 150 MB). Bounded to well under a minute.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureIo } from '../src/cli/io.js';
import { main } from '../src/cli/main.js';
import type { PlanPolicy } from '../src/model/plan.js';
import { type DesiredWebsite, defaultSettings, type LiveWebsite } from '../src/model/website.js';
import { plan, policyFromConfig } from '../src/plan/index.js';
import { startServer } from '../src/server/index.js';
import { insertWebsites } from '../test/helpers/stored-website.js';
import { median } from './support.js';

const KEY = 'bench-key-planner-0123456789';
const PURE_SITES = 100_000;
const CLI_SITES = 10_000;
const ROUNDS = 7;

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

/** Child side: `sitesync plan` in-process; prints one JSON line of figures. */
async function runPlanChild(url: string, file: string): Promise<void> {
  const io = captureIo({ env: { SITESYNC_API_KEY: KEY } });
  // What the process holds before the command runs (node, tsx, the modules): the rest is the plan's.
  const baseRssMb = process.resourceUsage().maxRSS / 1024;
  const start = performance.now();
  const code = await main(
    ['plan', '-f', file, '--url', url, '--rate-limit', '0', '--format', 'json', '--log-level', 'debug'],
    io,
  );
  const ms = performance.now() - start;
  const requests = /listed (\d+) websites in (\d+) requests/.exec(io.err());
  const document = JSON.parse(io.out());
  console.log(
    JSON.stringify({
      code,
      ms,
      listed: Number(requests?.[1]),
      requests: Number(requests?.[2]),
      summary: document.summary,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      baseRssMb,
    }),
  );
}

async function benchCli(): Promise<void> {
  const server = await startServer({ port: 0, db: ':memory:', keys: [KEY], throttlePerMinute: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-bench-'));
  try {
    const domains = Array.from({ length: CLI_SITES }, (_, i) => domain(i + 1));
    insertWebsites(server, KEY, domains, { excludeIps: '10.0.0.2\r\n10.0.0.1' });
    const file = cliConfig(dir);
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', server.url, file],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`plan child exited with ${code}: ${output}`);
    const figures = JSON.parse(output.trim().split('\n').at(-1)!);
    const { summary } = figures;
    console.log(
      `| sitesync plan, ${CLI_SITES.toLocaleString('en')} live sites (${summary.update} updates, ${summary.unchanged} unchanged; exit ${figures.code}) | ${figures.ms.toFixed(0)} ms, ${figures.requests} requests, peak RSS ${figures.peakRssMb.toFixed(0)} MB (${figures.baseRssMb.toFixed(0)} MB before the command) | goal 100 requests, ≤ 150 MB |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
}

if (process.argv[2] === '--child') {
  await runPlanChild(process.argv[3]!, process.argv[4]!);
} else {
  console.log('| benchmark | result | goal |');
  console.log('| --- | --- | --- |');
  benchPure();
  await benchCli();
}
