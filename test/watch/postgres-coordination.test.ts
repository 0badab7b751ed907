/**
 * Replicas of watch on a real PostgreSQL (issue 34): each target held by
 * exactly one live replica, the targets rebalanced as replicas join and
 * leave, a replica whose session dies holds nothing and its targets go to
 * the others at their next claim; alert state kept in the database across a
 * restart (no second "firing", the resolution still sent), and so is the
 * status page's drift chart. Claims and cycles
 * are driven one by one, never by time.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startFleet } from '../../bench/fleet/simulator.js';
import type { Claim, Coordination } from '../../src/watch/coordination/port.js';
import { postgresCoordination } from '../../src/watch/coordination/postgres.js';
import { createTestDatabase } from '../helpers/postgres-database.js';
import { tempDir } from '../helpers/temp.js';
import { fleetConfig, MINUTE, useCleanups, watchClock, watchInProcess, webhookReceiver } from './support.js';

const cleanups = useCleanups();
const TARGETS = Array.from({ length: 30 }, (_, i) => `target-${i}`);
const quiet = () => {};

async function database() {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function replica(url: string, id: string): Promise<Coordination> {
  const coordination = await postgresCoordination({ url, log: quiet, id });
  cleanups.push(() => coordination.close());
  return coordination;
}

/** Every target in exactly one of the claims. */
function expectPartition(claims: readonly Claim[]) {
  const owners = TARGETS.map((target) => claims.filter((claim) => claim.owned.has(target)).length);
  expect(owners).toEqual(TARGETS.map(() => 1));
}

/** The target locks each backend holds, read from pg_locks by a session of the test's own. */
async function locksByBackend(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ count: string }>(
      `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       GROUP BY pid, classid HAVING count(*) > 1 ORDER BY count(*)`,
    );
    return rows.rows.map((row) => Number(row.count));
  } finally {
    await client.end();
  }
}

describe('PostgreSQL coordination of watch replicas', () => {
  it('gives each target to exactly one replica, and rebalances as replicas join and leave', async () => {
    const { url } = await database();
    const a = await replica(url, 'replica-a');
    let claims = [await a.claim(TARGETS)];
    expect(claims[0]!.owned.size).toBe(30); // alone: everything
    const b = await replica(url, 'replica-b');
    const c = await replica(url, 'replica-c');
    expect((await b.claim(TARGETS)).owned.size).toBe(0); // a holds them all until its next cycle
    await c.claim(TARGETS);
    // a's next cycle gives back what b and c win; theirs take it.
    claims = [await a.claim(TARGETS), await b.claim(TARGETS), await c.claim(TARGETS)];
    expectPartition(claims);
    expect(claims.map((claim) => claim.replicas)).toEqual([3, 3, 3]);
    for (const claim of claims) expect(claim.owned.size).toBeGreaterThanOrEqual(4); // a fair share, roughly
    expect((await locksByBackend(url)).reduce((sum, count) => sum + count, 0)).toBe(30);
    const held = [...claims[1]!.owned][0]!;
    expect(await b.holds(held)).toBe(true);
    expect(await a.holds(held)).toBe(false);

    await c.close(); // a clean leave
    claims = [await a.claim(TARGETS), await b.claim(TARGETS)];
    expectPartition(claims);
    expect(claims.map((claim) => claim.replicas)).toEqual([2, 2]);
    expect(claims[0]!.taken.size + claims[1]!.taken.size).toBeGreaterThan(0); // c's share, taken over
  });

  it("frees a dead replica's targets at once, and the dead one writes nothing more", async () => {
    const { url } = await database();
    const a = await replica(url, 'replica-a');
    const b = await replica(url, 'replica-b');
    await a.claim(TARGETS);
    await b.claim(TARGETS);
    let claims = [await a.claim(TARGETS), await b.claim(TARGETS)];
    expectPartition(claims);
    const ofB = [...claims[1]!.owned];
    // b's session ends as a killed process's does (its socket closed): PostgreSQL drops its locks.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2
         AND objid::bigint = (SELECT lock_key FROM sitesync_watch_replicas WHERE id = 'replica-b')`,
    );
    await admin.end();
    expect(await b.holds(ofB[0]!)).toBe(false); // asked before a write: no
    claims = [await a.claim(TARGETS)];
    expect(claims[0]!.owned.size).toBe(30);
    expect(ofB.every((target) => claims[0]!.taken.has(target))).toBe(true);
  });

  it('checks each installation of a fleet by exactly one of three replicas each cycle', async () => {
    const { url } = await database();
    const fleet = await startFleet({ installations: 9, websites: 3, latencyMs: 0 });
    cleanups.push(() => fleet.close());
    const dir = tempDir('watch-replicas');
    const env = fleetConfig(fleet, dir, 3);
    const replicas: Awaited<ReturnType<typeof watchInProcess>>[] = [];
    for (const name of ['a', 'b', 'c']) {
      const watch = await watchInProcess({
        source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: false },
        intervalMs: 5 * MINUTE,
        budgetPerMinute: 20,
        renotifyMs: 24 * 60 * MINUTE,
        webhooks: [],
        coordination: { url, replica: name },
        clock: watchClock(0),
      });
      cleanups.push(() => watch.close());
      replicas.push(watch);
    }
    // Two cycles each to join and settle (a replica gives up what another wins at its own next cycle).
    for (const cycles of [1, 2]) for (const watch of replicas) await watch.run(cycles);
    const before = fleet.listings.map((starts) => starts.length);
    const checked = (watch: (typeof replicas)[number]): string[] =>
      watch.lines.filter((line) => line.msg === 'checked').map((line) => String(line.target));
    const seen = replicas.map((watch) => checked(watch).length);
    await Promise.all(replicas.map((watch) => watch.run(3))); // one cycle, side by side
    const round = replicas.map((watch, index) => checked(watch).slice(seen[index]));
    expect(round.flat().sort()).toEqual(fleet.installations.map((one) => `t${one.index}`).sort());
    expect(fleet.listings.map((starts, index) => starts.length - before[index]!)).toEqual(Array(9).fill(1));
    expect(round.map((names) => names.length).every((count) => count >= 1)).toBe(true);
    expect(replicas.map((watch) => watch.watcher.status().coordination.replicas)).toEqual([3, 3, 3]);
  });

  it('keeps alert state across a restart (no second firing, the resolution still sent) and the drift chart', async () => {
    const { url } = await database();
    const clock = watchClock(Date.parse('2026-07-06T08:00:00Z'));
    const fleet = await startFleet({ installations: 2, websites: 5, latencyMs: 0 });
    cleanups.push(() => fleet.close());
    const dir = tempDir('watch-alert-state');
    const env = fleetConfig(fleet, dir, 5);
    const receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    const start = async (replicaName: string) => {
      const watch = await watchInProcess({
        source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: false },
        intervalMs: 5 * MINUTE,
        budgetPerMinute: 20,
        renotifyMs: 24 * 60 * MINUTE,
        webhooks: [{ name: 'TEAM_WEBHOOK', url: receiver.url }],
        coordination: { url, replica: replicaName },
        clock,
      });
      cleanups.push(() => watch.close());
      return watch;
    };
    const alerts = () => receiver.bodies.map((body) => [body.target, body.alert, body.status, body.since]);

    await fleet.drift(1, [2]);
    let watch = await start('first');
    await watch.run(1);
    await watch.webhooks.idle();
    expect(alerts()).toEqual([['t1', 'drift', 'firing', '2026-07-06T08:02:30.000Z']]); // t1's slot: half the interval
    await watch.close();

    watch = await start('second'); // a restart: the drift is still there
    await watch.run(2);
    await watch.webhooks.idle();
    expect(alerts()).toHaveLength(1);
    expect(watch.watcher.status().targets.find((target) => target.target === 't1')?.alerts).toEqual(['drift']);
    await watch.close();

    await fleet.restore(1, [2]); // fixed while no watch ran
    watch = await start('third');
    await watch.run(1);
    await watch.webhooks.idle();
    expect(alerts()).toEqual([
      ['t1', 'drift', 'firing', '2026-07-06T08:02:30.000Z'],
      ['t1', 'drift', 'resolved', '2026-07-06T08:02:30.000Z'], // since: when it first fired, before the restarts
    ]);
    // The status page's drift chart too: this quarter hour's highest count is the drift the replicas
    // before saw (read from the database), though this one's own check found none.
    const chart = watch.watcher.status().targets.find((target) => target.target === 't1')?.drift24h;
    expect(chart?.counts.filter((count) => count !== null)).toEqual([1]);
  });
});
