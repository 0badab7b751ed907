// SIGKILL `sitesync apply` (the real bin, as a child process) at seeded random
// points of its progress, 20 trials across both server modes, then re-run: it
// converges every time, with no duplicate website and nothing deleted outside
// the plan, judged by the server's database. Kill points are events, not
// timers: the proxy holds the k-th write as it arrives, the child is killed and
// has exited, then the held write is forwarded (committed after the client
// died) or dropped (never arrived). With k > parallelism, at least one write
// was answered before the kill, and with k < all writes, some were never sent:
// the kill lands inside the apply however fast or slow the machine is.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { plan, policyFromConfig } from '../../src/plan/index.js';
import { domainsInDb, MODES, type Mode, seedWebsites, testClient } from '../apply/support.js';
import { seededRandom } from '../helpers/fault-proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { type BuiltCli, builtCli, type ChildRun, type RunOptions, runCli } from './built-cli.js';
import { startLatencyProxy } from './latency-proxy.js';

const TRIALS = 20;
const PARALLELISM = 4;
const LATENCY_MS = 10;
const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}.example`);
const UPDATED = names('u', 8);
const DELETED = names('d', 4);
const CREATED = names('c', 18);
const WRITES = UPDATED.length + DELETED.length + CREATED.length;
const OUTSIDE = 'keep-me.other';
const EXPECTED = [...UPDATED, ...CREATED, OUTSIDE].sort();

const CONFIG = [
  'version: 1',
  'prune: true',
  'manage:',
  '  include: ["*.example"]',
  'limits:',
  '  max_deletes: 10',
  '  max_change_percent: 100',
  'websites:',
  ...UPDATED.map((domain) => `  - domain: ${domain}\n    email: true\n    exclude_ips: [10.0.0.1]`),
  ...CREATED.map((domain) => `  - domain: ${domain}\n    privacy: public\n    favorite: true`),
  '',
].join('\n');

const ARGS = ['apply', '--auto-approve', '--rate-limit', '1000000', '--parallelism', String(PARALLELISM)];

interface Trial {
  mode: Mode;
  /** Kill when this write (1-based) reaches the proxy; 0: when the listing does. */
  killAt: number;
  /** What becomes of the request held at the kill. */
  held: 'forward' | 'drop';
}

describe('killed applies converge', () => {
  let cli: BuiltCli;
  let dir: string;
  beforeAll(async () => {
    cli = await builtCli();
    dir = tempDir('kill');
    writeFileSync(join(dir, 'websites.yaml'), CONFIG);
  }, 60_000);

  test(`${TRIALS} trials: SIGKILL at a random point, re-run, converged without duplicates`, async () => {
    const random = seededRandom(20_240_501);
    // Two edge trials (at the listing, at the first write), the rest strictly inside the apply.
    const inside = () => PARALLELISM + 1 + Math.floor(random() * (WRITES - PARALLELISM - 1));
    const trials: Trial[] = Array.from({ length: TRIALS }, (_, i) => ({
      mode: MODES[i % 2]!,
      killAt: i < 2 ? i : inside(),
      held: random() < 0.5 ? 'forward' : 'drop',
    }));
    let killedMidway = 0;
    // Two trials at a time: each has its own server, proxy and child process.
    for (let i = 0; i < trials.length; i += 2) {
      const outcomes = await Promise.all(trials.slice(i, i + 2).map((trial, j) => runTrial(trial, i + j)));
      killedMidway += outcomes.filter(Boolean).length;
    }
    // The kills drawn inside the apply left the account half-applied.
    expect(killedMidway).toBeGreaterThanOrEqual(TRIALS - 2);
  }, 120_000);

  test('Ctrl-C (SIGINT) to the real process: in-flight requests finish, the rest skipped, summary, exit 130', async () => {
    const control: NonNullable<RunOptions['control']> = {};
    let writes = 0;
    const server = await startTestServer({
      log: (line) => {
        if (!line.includes('"GET"') && ++writes === 5) control.signal?.('SIGINT');
      },
    });
    const proxy = await startLatencyProxy(server.url, LATENCY_MS);
    try {
      await seedWebsites(server, [...UPDATED, ...DELETED, OUTSIDE]);
      const env = { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key };
      const stopped = await runCli(cli, ARGS, { cwd: dir, env, control });
      expect(stopped.code, stopped.err).toBe(130);
      const [, applied, skipped] = (/^applied (\d+) of 30 changes; (\d+) skipped/m.exec(stopped.out) ?? []).map(Number);
      expect(applied).toBeGreaterThanOrEqual(5);
      expect(applied).toBeLessThan(30);
      // Every skip is a change not started: one line for them all.
      expect(stopped.out).toMatch(
        new RegExp(
          `^interrupted: ${skipped} changes? not started \\([^)]*\\); run the same command again to finish them$`,
          'm',
        ),
      );
      expect(stopped.out).not.toContain('not started: the run was interrupted');
      const rerun = await runCli(cli, ARGS, { cwd: dir, env });
      expect(rerun.code).toBe(0);
      expect((await domainsInDb(server)).sort()).toEqual(EXPECTED);
    } finally {
      await proxy.close();
      await server.close();
    }
  });

  /** One trial; true when the kill left the account half-applied. */
  async function runTrial(trial: Trial, index: number): Promise<boolean> {
    const label = `trial ${index} (${trial.mode}, killed at ${trial.killAt ? `write ${trial.killAt}` : 'the listing'}, held request ${trial.held === 'forward' ? 'forwarded' : 'dropped'})`;
    const control: NonNullable<RunOptions['control']> = {};
    const server = await startTestServer(trial.mode === 'normal' ? {} : { quirks: trial.mode });
    let writes = 0;
    let killed: Promise<ChildRun> | undefined;
    let fired = false;
    const proxy = await startLatencyProxy(server.url, LATENCY_MS, async (request) => {
      const isWrite = request.method !== 'GET';
      if (isWrite) writes += 1;
      const here = trial.killAt === 0 ? !isWrite && writes === 0 : isWrite && writes === trial.killAt;
      if (!here || !killed || fired) return 'forward';
      fired = true; // once: the re-run's requests pass
      control.signal?.('SIGKILL');
      await killed;
      return trial.held;
    });
    try {
      await seedWebsites(server, [...UPDATED, ...DELETED, OUTSIDE]);
      const env = { SITESYNC_URL: proxy.url, SITESYNC_API_KEY: server.key };
      const before = await snapshot(server);
      killed = runCli(cli, ARGS, { cwd: dir, env, control });
      const outcome = await killed;
      await proxy.idle(); // requests in flight at the kill have been committed (or dropped)
      const afterKill = await snapshot(server);
      expect(outcome.signal, `${label}: ${outcome.out}${outcome.err}`).toBe('SIGKILL');

      const rerun = await runCli(cli, ARGS, { cwd: dir, env });
      expect(rerun.code, `${label}: ${rerun.out}${rerun.err}`).toBe(0);
      const domains = await domainsInDb(server);
      expect(domains.length, `${label}: duplicates`).toBe(new Set(domains).size);
      expect([...domains].sort(), label).toEqual(EXPECTED);
      expect(await replan(server), `${label}: re-plan`).toEqual([]);
      return afterKill !== before && afterKill !== (await snapshot(server));
    } finally {
      await proxy.close();
      await server.close();
    }
  }

  /** The account's sites and the settings the plan changes, as stored. */
  async function snapshot(server: TestServer): Promise<string> {
    const shape = [
      ['domain', { column: 'domain' }],
      ['email', { column: 'email' }],
      ['privacy', { column: 'privacy' }],
    ] as const;
    const query = { accountId: server.accountId, sortBy: 'domain', sort: 'asc', limit: 1000, offset: 0 } as const;
    return (await server.server.store.listWebsites(query, shape)).json;
  }

  async function replan(server: TestServer) {
    const loaded = await loadConfig({ files: [join(dir, 'websites.yaml')], cwd: dir, env: {} });
    const api = testClient(server.url, server.key);
    try {
      const live = await api.listWebsites();
      return plan(loaded.state!.websites, live, policyFromConfig(loaded.state!.policy)).changes;
    } finally {
      await api.close();
    }
  }
});
