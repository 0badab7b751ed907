/**
 * What the benchmarks share: the median of a few rounds, and a reference
 * server in a child process (so the load generator does not share its event
 * loop with the server it measures).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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
