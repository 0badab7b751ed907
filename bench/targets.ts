/**
 * Fan-out over targets (`npx tsx bench/targets.ts`, part of `npm run bench`):
 * 3 targets × 60 creates, each target paced by its own client-side rate
 * limiter at 60 requests per window, against one target alone, in the same
 * run. Each target is what `plan`/`apply` do for it (list, plan, apply with
 * read-back), run through the CLI's own bounded fan-out (`fanOut`, bound 4).
 * The window is 2 s instead of a minute (the real limiter, only its window
 * shortened: the shape of a 60/min run, 30× faster), so the run takes seconds.
 * Goal: 3 targets take ≤ 1.3× one target alone (median of 3 rounds each).
 */

import { fileURLToPath } from 'node:url';
import { createClient } from '../src/api/index.js';
import { applyPlan } from '../src/apply/apply-plan.js';
import { settleBounded } from '../src/engine/pool.js';
import type { TargetDeclaration } from '../src/model/desired-state.js';
import { Secret } from '../src/model/secret.js';
import { startServer } from '../src/server/index.js';
import { createPlan, desiredSites, median, spawnServer as spawnChild } from './support.js';

const KEYS = ['bench-target-key-a-0123456789', 'bench-target-key-b-0123456789', 'bench-target-key-c-0123456789'];
const CREATES = 60;
const PER_WINDOW = 60;
const WINDOW_MS = 2_000;
const ROUNDS = 3;

/** One target's plan and apply, as the CLI runs it: its own client, so its own limiter. */
async function planAndApply(url: string, key: string, prefix: string): Promise<void> {
  const api = createClient({
    url,
    apiKey: new Secret(key),
    concurrency: 4,
    rateLimitPerMinute: PER_WINDOW,
    rateLimitWindowMs: WINDOW_MS,
  });
  try {
    const sites = desiredSites(prefix, CREATES);
    const live = await api.listWebsites();
    const planned = createPlan(sites, live);
    const result = await applyPlan(planned, new Map(sites.map((site) => [site.domain, site])), api, {
      parallelism: 4,
      liveCount: live.length + CREATES,
    });
    if (result.counts.failed > 0) throw new Error(`${prefix}: ${result.counts.failed} changes failed`);
  } finally {
    await api.close();
  }
}

async function timed(url: string, targets: number, round: string): Promise<number> {
  const declared: TargetDeclaration[] = KEYS.slice(0, targets).map((_, index) => ({
    name: `t${index}`,
    url,
    key: { env: `KEY_${index}` },
    files: [],
    declaredIn: 'websites.yaml',
  }));
  const started = performance.now();
  const outcomes = await settleBounded(declared, 4, async (target) => {
    const index = Number(target.name.slice(1));
    await planAndApply(url, KEYS[index] as string, `${round}-${target.name}`);
  });
  const elapsed = performance.now() - started;
  const failed = outcomes.filter((outcome) => !outcome.ok);
  if (failed.length > 0)
    throw new Error(`targets failed: ${failed.map((outcome) => String(!outcome.ok && outcome.error)).join('; ')}`);
  return elapsed;
}

async function main(): Promise<void> {
  const { child, url } = await spawnChild(fileURLToPath(import.meta.url));
  try {
    const one: number[] = [];
    const three: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      one.push(await timed(url, 1, `one${round}`));
      three.push(await timed(url, 3, `three${round}`));
    }
    const ratio = median(three) / median(one);
    console.log(`| case | median of ${ROUNDS} |`);
    console.log('|---|---|');
    console.log(
      `| 1 target × ${CREATES} creates, ${PER_WINDOW} requests per ${WINDOW_MS} ms | ${median(one).toFixed(0)} ms |`,
    );
    console.log(`| 3 targets × ${CREATES} creates, each its own limiter | ${median(three).toFixed(0)} ms |`);
    console.log(`| ratio | ${ratio.toFixed(2)}× |`);
    console.log(`\nfan-out: 3 targets ≤ 1.3× one target ${ratio <= 1.3 ? 'PASS' : 'FAIL'}`);
    if (ratio > 1.3) process.exitCode = 1;
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv.includes('--server')) {
  const server = await startServer({ port: 0, db: ':memory:', keys: KEYS, throttlePerMinute: 0 });
  process.stdout.write(`${server.url}\n`);
  process.once('SIGTERM', () => void server.close());
} else {
  await main();
}
