/**
 * Planner benchmark (`npx tsx bench/planner.ts`, part of `npm run bench`):
 * the pure planner on 100,000 desired and 100,000 live sites (goal ≤ 0.3 s).
 * `sitesync plan` as a whole process is measured by bench/cli.ts, which runs
 * this file with `--server COUNT` for its reference server.
 */
import type { PlanPolicy } from '../src/model/plan.js';
import { type DesiredWebsite, defaultSettings, type LiveWebsite } from '../src/model/website.js';
import { plan, policyFromConfig } from '../src/plan/index.js';
import { median } from './support.js';

/** bench/cli.ts sends the same key. */
export const KEY = 'bench-key-planner-0123456789';
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

/**
 * The same input classified against a baseline (the configuration unchanged
 * since: every update is drift), as a ratio of the plain planner in the same run.
 */
function benchBaseline(): void {
  const input = pureInput();
  const baseline = {
    ref: { ref: 'sitesync-applied', commit: '0'.repeat(40), source: 'option' as const },
    websites: input.desired,
    policy: input.policy,
  };
  const plain: number[] = [];
  const classified: number[] = [];
  let summary = '';
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now();
    plan(input.desired, input.live, input.policy);
    plain.push(performance.now() - start);
    start = performance.now();
    const result = plan(input.desired, input.live, input.policy, baseline);
    classified.push(performance.now() - start);
    summary = `${result.summary.pending} pending, ${result.summary.drift} drift`;
  }
  const ratio = median(classified) / median(plain);
  console.log(
    `| planner with a baseline, ${PURE_SITES.toLocaleString('en')} sites (${summary}) | median of ${ROUNDS} ${median(classified).toFixed(0)} ms, ${ratio.toFixed(2)}× the plain planner (${median(plain).toFixed(0)} ms) in the same run | |`,
  );
}

/**
 * Server side for bench/cli.ts (a child process): an in-memory reference
 * server seeded with `count` sites (default 10,000); prints its URL.
 */
async function runServer(count: number): Promise<void> {
  const { startServer } = await import('../src/server/index.js');
  const { insertWebsites } = await import('../test/helpers/stored-website.js');
  const server = await startServer({ port: 0, db: ':memory:', keys: [KEY], throttlePerMinute: 0 });
  const domains = Array.from({ length: count }, (_, i) => domain(i + 1));
  await insertWebsites(server, KEY, domains, { excludeIps: '10.0.0.2\r\n10.0.0.1' });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
}

if (process.argv[2] === '--server') {
  await runServer(Number(process.argv[3] ?? CLI_SITES));
} else {
  console.log('| benchmark | result | goal |');
  console.log('| --- | --- | --- |');
  benchPure();
  benchBaseline();
}
