/**
 * What the benchmarks share: the median of a few rounds, and a reference
 * server in a child process (so the load generator does not share its event
 * loop with the server it measures).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Plan, PlanPolicy } from '../src/model/plan.js';
import { type DesiredWebsite, defaultSettings } from '../src/model/website.js';
import { plan } from '../src/plan/index.js';

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/**
 * Runs the benchmark `file` again as a child with `--server` and `args`; the
 * child starts a server and prints its URL as its first line of output.
 */
export async function spawnServer(
  file: string,
  args: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...process.execArgv, file, '--server', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`benchmark server exited with ${code}`)));
  });
  return { child, url };
}

/** `count` sites `PREFIX-i.example.com` with default settings: what the apply benchmarks create. */
export function desiredSites(prefix: string, count: number): DesiredWebsite[] {
  return Array.from({ length: count }, (_, i) => ({
    domain: `${prefix}-${i}.example.com`,
    settings: defaultSettings(),
    ignoreChanges: [],
  }));
}

/** Everything managed, nothing deleted, no share limit: a plan of `sites` against `live` is creates only. */
export const CREATE_POLICY: PlanPolicy = {
  prune: false,
  manage: { include: ['*'], exclude: [] },
  protect: [],
  limits: { maxDeletes: 0, maxChangePercent: 100 },
  only: [],
  skip: [],
  syncWriteOnly: false,
};

/** The plan that creates `sites` in an account holding `live` (none of them, in the benchmarks). */
export function createPlan(sites: DesiredWebsite[], live: Parameters<typeof plan>[1] = []): Plan {
  return plan(sites, live, CREATE_POLICY);
}

/** websites.yaml with `count` sites `site-i.example.com` (as bench/planner.ts --server seeds them), 5% drifted (email on). */
export function writeSitesConfig(dir: string, count: number): string {
  const lines = ['version: 1', 'defaults:', '  exclude_ips: [10.0.0.1, 10.0.0.2]', 'websites:'];
  for (let i = 1; i <= count; i++)
    lines.push(`  - domain: site-${i}.example.com${i % 20 === 0 ? '\n    email: true' : ''}`);
  const file = join(dir, `websites-${count}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const BIN = fileURLToPath(new URL('../bin/sitesync.js', import.meta.url));
/** Prints the process's peak RSS (KB) as its last line of standard error. */
const REPORT_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss='+process.resourceUsage().maxRSS+'\\n'))`;

export interface CliRun {
  ms: number;
  rssMb: number;
  code: number | null;
  /** Its standard error, the maxrss line left out. */
  stderr: string;
}

/** The built CLI (`npm run build` first) as a child with only PATH and `env`: its wall time, peak RSS and exit. */
export function runBuiltCli(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', REPORT_RSS, BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const done = new Promise<CliRun>((resolve) =>
    child.once('close', (code) => {
      const rss = Number(/maxrss=(\d+)/.exec(err)?.[1] ?? Number.NaN);
      const stderr = err.replace(/^maxrss=\d+\n/m, '');
      resolve({ ms: performance.now() - started, rssMb: rss / 1024, code, stderr });
    }),
  );
  return { child, done, stderr: () => err };
}

/** A port nobody listens on now (benchmarks only: a tiny race with other programs). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
