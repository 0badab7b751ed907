/**
 * Store-level create probe on PostgreSQL (`npx tsx bench/account-creates.ts`):
 * 16 concurrent `insertWebsite` loops in one process, no HTTP, for
 * BENCH_DURATION seconds (default 3) each: into one unlimited account, spread
 * over 16 accounts, and into one account with a (never reached) website limit.
 * Shows whether one account's creates queue behind each other (docs/benchmarks.md,
 * "One account's creates"). A throwaway PostgreSQL 15 cluster (fsync on) is
 * started for the run.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { openPostgresStore } from '../src/server/store/postgres/store.js';
import { startThrowawayCluster } from '../test/helpers/postgres-cluster.js';
import { STORED_DEFAULTS } from '../test/helpers/stored-website.js';

const DURATION_MS = Number(process.env.BENCH_DURATION ?? 3) * 1000;
const CONCURRENCY = 16;

async function main(): Promise<void> {
  const cluster = await startThrowawayCluster();
  try {
    const admin = new pg.Client({ connectionString: `${cluster.url}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE probe');
    await admin.end();
    const store = await openPostgresStore(`${cluster.url}/probe`, { poolSize: CONCURRENCY });
    try {
      const one = await store.createAccount({ name: 'one' });
      const limited = await store.createAccount({ name: 'limited', websiteLimit: 1_000_000_000 });
      const many = await Promise.all(Array.from({ length: 16 }, (_, i) => store.createAccount({ name: `t${i}` })));
      let serial = 0;
      const run = async (label: string, accountOf: (worker: number, n: number) => number) => {
        let done = 0;
        const until = Date.now() + DURATION_MS;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async (_, worker) => {
            for (let n = 0; Date.now() < until; n++) {
              serial += 1;
              await store.insertWebsite(accountOf(worker, n), `probe-${serial}.example`, STORED_DEFAULTS, new Date());
              done += 1;
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        process.stdout.write(`${label}: ${Math.round(done / seconds).toLocaleString('en')} inserts/s\n`);
      };
      process.stdout.write(`load average before: ${loadavg()[0]!.toFixed(1)}\n`);
      await run('1 account, no limit', () => one.id);
      await run('16 accounts, no limit', (worker, n) => many[(worker + n) % 16]!.id);
      await run('1 account with a limit', () => limited.id);
      await run('1 account, no limit (again)', () => one.id);
    } finally {
      await store.close();
    }
  } finally {
    cluster.stop();
  }
}

await main();
