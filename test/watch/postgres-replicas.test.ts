/**
 * Replicas of `sitesync watch` as child processes (the real bin) on a real
 * PostgreSQL (issue 34): after kill -9 of one, the other takes its targets at
 * its next cycle; and a replica killed in the middle of a heal, whose write
 * reaches the service only after the other replica has looked at the site,
 * leaves that site written once (the new owner looks before it heals).
 * Cycles are started by SIGHUP (--interval 1h never comes) and every wait is
 * for an event: a log line, a process's exit, a session leaving pg_locks.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines } from '../../bench/fleet/processes.js';
import { startFleet } from '../../bench/fleet/simulator.js';
import { type BuiltCli, builtCli, type ChildRun, type RunOptions, runCli } from '../e2e/built-cli.js';
import { startLatencyProxy } from '../e2e/latency-proxy.js';
import { createTestDatabase } from '../helpers/postgres-database.js';
import { tempDir } from '../helpers/temp.js';
import { fleetConfig, useCleanups } from './support.js';

const cleanups = useCleanups();
const ARGS = ['watch', '--coordination-env', 'COORDINATION_URL', '--interval', '1h', '--log-format', 'json'];

interface Replica {
  lines: Record<string, unknown>[];
  /** Resolves with the first line (already written or to come) that `match` accepts. */
  line(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  signal(signal: NodeJS.Signals): void;
  ended: Promise<ChildRun>;
}

function startReplica(cli: BuiltCli, args: string[], options: Pick<RunOptions, 'cwd' | 'env'>): Replica {
  const log = jsonLines();
  const control: NonNullable<RunOptions['control']> = {};
  const ended = runCli(cli, [...ARGS, ...args], { ...options, control, onStderr: log.feed });
  cleanups.push(async () => {
    control.signal?.('SIGKILL');
    await ended;
  });
  return {
    lines: log.lines,
    line: log.line,
    signal: (signal) => control.signal?.(signal),
    ended,
  };
}

/** Waits until no session holds the advisory lock of replica `id` any more (its process is gone). */
async function sessionGone(url: string, id: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query(
        `SELECT 1 FROM pg_locks l JOIN sitesync_watch_replicas r ON l.objid::bigint = r.lock_key
          WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND r.id = $1`,
        [id],
      );
      if (rows.length === 0) return;
      await sleep(20); // PostgreSQL notices the closed socket on its own; nothing here is timed
    }
  } finally {
    await client.end();
  }
}

const checkedCount = (replica: Replica, target?: string) =>
  replica.lines.filter((line) => line.msg === 'checked' && (target === undefined || line.target === target)).length;

describe('watch replicas as processes', () => {
  let cli: BuiltCli;
  beforeAll(async () => {
    cli = await builtCli();
  }, 120_000);

  it("takes a killed replica's targets at its next cycle", async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const fleet = await startFleet({ installations: 6, websites: 3, latencyMs: 0 });
    cleanups.push(() => fleet.close());
    const dir = tempDir('watch-replicas');
    const env = { ...fleetConfig(fleet, dir, 3), COORDINATION_URL: db.url };

    const a = startReplica(cli, ['--replica-name', 'a'], { cwd: dir, env });
    await a.line((line) => line.msg === 'targets claimed' && line.owned === 6); // alone: every target
    a.signal('SIGHUP'); // check them all now, not spread over the hour
    await a.line(() => checkedCount(a) === 6);
    const b = startReplica(cli, ['--replica-name', 'b'], { cwd: dir, env });
    await b.line((line) => line.msg === 'targets claimed'); // joined, holding nothing yet
    a.signal('SIGHUP'); // a's next cycle gives b its share
    await a.line((line) => line.msg === 'targets claimed' && line.given !== 0);
    b.signal('SIGHUP');
    await b.line((line) => line.msg === 'targets claimed' && line.owned !== 0);
    const ofB = Number((await b.line((line) => line.msg === 'targets claimed' && line.owned !== 0)).owned);
    expect(ofB).toBeGreaterThan(0);
    expect(ofB).toBeLessThan(6);

    a.signal('SIGKILL');
    expect((await a.ended).signal).toBe('SIGKILL');
    await sessionGone(db.url, 'a');
    const before = checkedCount(b);
    b.signal('SIGHUP'); // b's next cycle: every target is b's
    const claimed = await b.line((line) => line.msg === 'targets claimed' && line.owned === 6);
    expect(claimed).toMatchObject({ replicas: 1, taken: 6 - ofB });
    await b.line(() => checkedCount(b) === before + 6);
    b.signal('SIGTERM');
    expect((await b.ended).code).toBe(0);
  }, 120_000);

  it('writes a site once when its healer is killed mid-write and the write lands after the new owner looked', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const fleet = await startFleet({ installations: 1, websites: 3, latencyMs: 0 });
    cleanups.push(() => fleet.close());
    const [installation] = fleet.installations;
    const dir = tempDir('watch-replicas-heal');
    const domains = [0, 1, 2].map((site) => `  - domain: ${fleet.domain(0, site)}`);
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\ndefaults:\n  privacy: private\nwebsites:\n${domains.join('\n')}\n`,
    );
    let arrived = () => {};
    const writeArrived = new Promise<void>((resolve) => (arrived = resolve));
    let release: (verdict: 'forward') => void = () => {};
    const released = new Promise<'forward'>((resolve) => (release = resolve));
    const proxy = await startLatencyProxy(installation!.url, 0, (request) => {
      if (request.method !== 'PUT') return 'forward';
      arrived();
      return released; // held until the other replica has looked at the site
    });
    cleanups.push(() => proxy.close());
    const heal = ['--self-heal', 'drift'];
    const env = { SITESYNC_API_KEY: installation!.key, COORDINATION_URL: db.url };
    const [drifted] = await fleet.drift(0, [1]);

    const a = startReplica(cli, [...heal, '--replica-name', 'a'], {
      cwd: dir,
      env: { ...env, SITESYNC_URL: proxy.url },
    });
    await a.line((line) => line.msg === 'checked' && line.drift === 1); // taken at start: looked at, not healed
    a.signal('SIGHUP'); // its second check heals: the write is held on its way
    await writeArrived;
    a.signal('SIGKILL');
    await a.ended;
    await sessionGone(db.url, 'a');

    const b = startReplica(cli, [...heal, '--replica-name', 'b'], {
      cwd: dir,
      env: { ...env, SITESYNC_URL: installation!.url },
    });
    await b.line((line) => line.msg === 'checked' && line.drift === 1); // just taken over: it only looks
    release('forward'); // the dead replica's write lands now
    await proxy.idle();
    b.signal('SIGHUP');
    await b.line((line) => line.msg === 'checked' && line.drift === 0);
    b.signal('SIGTERM');
    expect((await b.ended).code).toBe(0);

    expect(fleet.writes.map((write) => [write.method, write.site])).toEqual([['PUT', drifted]]);
    expect(fleet.doubleWrites()).toEqual([]);
    expect(b.lines.filter((line) => String(line.msg).startsWith('self-heal'))).toEqual([]);
  }, 120_000);
});
