/**
 * Replicas of watch sharing the work through PostgreSQL (--coordination-env).
 * Ownership is a session advisory lock per target, held on this replica's
 * one connection: PostgreSQL grants each lock to one session at a time and
 * drops every lock of a session that ends, so a replica killed with -9 (its
 * socket closed by the kernel) loses its targets at once, with no clock
 * involved. Each replica holds a lock of its own too, and its row in
 * `sitesync_watch_replicas`: the live replicas are the rows whose lock is
 * held. Each cycle a replica computes, from the live replicas, which targets
 * are its own (assignment.ts), gives back the others and tries to take its
 * own: a joining replica gets its share as the others give it up, a dead
 * one's share goes to the survivors at their next cycle.
 *
 * Before every write of a heal the lock is asked for again on the same
 * connection: a replica whose session is gone (the database restarted, the
 * connection was cut) writes nothing more. Alert state lives in
 * `sitesync_watch_alerts`, read when a target is taken and written before
 * each document is sent; the status page's drift history in
 * `sitesync_watch_drift` (one row per target and quarter hour of the last
 * day), written when a quarter hour's count changes and read when a target
 * is taken.
 */

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { BUCKET_MS, BUCKETS, type DriftHistory, MemoryDriftHistory } from '../drift-history.js';
import type { Logger } from '../log.js';
import { lockKey, ownerOf, replicaKey, targetKey } from './assignment.js';
import { type ActiveAlert, type AlertState, type Claim, type Coordination, MemoryAlertState } from './port.js';

/** The two lock namespaces (the first key of pg_try_advisory_lock(int, int)). */
const TARGETS = lockKey('sitesync watch targets');
const REPLICAS = lockKey('sitesync watch replicas');

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sitesync_watch_replicas (
  id text PRIMARY KEY,
  lock_key integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS sitesync_watch_alerts (
  target text NOT NULL,
  alert text NOT NULL,
  since bigint NOT NULL,
  last_sent bigint NOT NULL,
  PRIMARY KEY (target, alert)
);
ALTER TABLE sitesync_watch_alerts ADD COLUMN IF NOT EXISTS domains text[] NOT NULL DEFAULT '{}';
CREATE TABLE IF NOT EXISTS sitesync_watch_drift (
  target text NOT NULL,
  bucket bigint NOT NULL,
  drift integer NOT NULL,
  PRIMARY KEY (target, bucket)
)`;

/** Advisory locks of `namespace` held in this database; `$1` is the namespace. */
const LOCKS = `SELECT objid::bigint AS key, pid FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid::bigint = $1
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

export interface PostgresCoordinationOptions {
  url: string;
  log: Logger;
  /** This replica's name (default: host, pid and a random part). */
  id?: string;
  /** Wall time, epoch milliseconds (default Date.now): which quarter hours of drift are a day old. */
  now?: () => number;
}

export async function postgresCoordination(options: PostgresCoordinationOptions): Promise<Coordination> {
  const id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const { log } = options;
  const alerts = new MemoryAlertState();
  const drift = new MemoryDriftHistory();
  /** Target lock keys this session holds. */
  let held = new Set<number>();
  let session: pg.Client | undefined;

  const lost = (client: pg.Client, reason: string) => {
    if (session !== client) return;
    session = undefined;
    held = new Set();
    log('error', 'coordination: the database connection is lost: this replica holds no target now', { reason });
    client.end().catch(() => {});
  };

  const connect = async (): Promise<pg.Client> => {
    if (session !== undefined) return session;
    const client = new pg.Client({
      connectionString: options.url,
      application_name: 'sitesync watch',
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
      statement_timeout: 10_000,
    });
    client.on('error', (error) => lost(client, error.message));
    client.on('end', () => lost(client, 'the connection ended'));
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, 0)', [REPLICAS]); // one schema creation at a time
      await client.query(SCHEMA);
      await client.query('COMMIT');
      // The lock first, then the row: a row whose lock is held is never taken for a dead replica's.
      await client.query('SELECT pg_advisory_lock($1, $2)', [REPLICAS, replicaKey(id)]);
      await client.query(
        'INSERT INTO sitesync_watch_replicas (id, lock_key) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
        [id, replicaKey(id)],
      );
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    session = client;
    log('info', 'coordination: joined', { replica: id });
    return client;
  };

  const liveReplicas = async (client: pg.Client): Promise<string[]> => {
    await client.query(
      `DELETE FROM sitesync_watch_replicas r WHERE NOT EXISTS (SELECT 1 FROM (${LOCKS}) l WHERE l.key = r.lock_key)`,
      [REPLICAS],
    );
    const rows = await client.query<{ id: string }>('SELECT id FROM sitesync_watch_replicas ORDER BY id');
    return rows.rows.map((row) => row.id);
  };

  const loadAlerts = async (client: pg.Client, targets: readonly string[]) => {
    if (targets.length === 0) return;
    const rows = await client.query<{
      target: string;
      alert: string;
      since: string;
      last_sent: string;
      domains: string[];
    }>('SELECT target, alert, since, last_sent, domains FROM sitesync_watch_alerts WHERE target = ANY($1)', [targets]);
    const byTarget = new Map<string, Map<string, ActiveAlert>>(targets.map((target) => [target, new Map()]));
    for (const row of rows.rows)
      byTarget
        .get(row.target)
        ?.set(row.alert, { since: Number(row.since), lastSent: Number(row.last_sent), domains: row.domains });
    for (const [target, states] of byTarget) alerts.replace(target, states);
  };

  const state: AlertState = {
    get: (target, alert) => alerts.get(target, alert),
    async set(target, alert, active) {
      await alerts.set(target, alert, active);
      const client = session;
      if (client === undefined || !held.has(targetKey(target))) return; // not ours (any more): not ours to record
      try {
        if (active === undefined)
          await client.query('DELETE FROM sitesync_watch_alerts WHERE target = $1 AND alert = $2', [target, alert]);
        else
          await client.query(
            `INSERT INTO sitesync_watch_alerts (target, alert, since, last_sent, domains) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (target, alert) DO UPDATE
             SET since = excluded.since, last_sent = excluded.last_sent, domains = excluded.domains`,
            [target, alert, active.since, active.lastSent, active.domains],
          );
      } catch (error) {
        log('warn', 'coordination: alert state not recorded', { target, alert, error: (error as Error).message });
      }
    },
  };

  const loadDrift = async (client: pg.Client, targets: readonly string[]) => {
    if (targets.length === 0) return;
    const since = Math.floor((options.now ?? Date.now)() / BUCKET_MS) - BUCKETS;
    await client.query('DELETE FROM sitesync_watch_drift WHERE bucket <= $1', [since]);
    const rows = await client.query<{ target: string; bucket: string; drift: number }>(
      'SELECT target, bucket, drift FROM sitesync_watch_drift WHERE target = ANY($1) AND bucket > $2',
      [targets, since],
    );
    const byTarget = new Map<string, { bucket: number; drift: number }[]>(targets.map((target) => [target, []]));
    for (const row of rows.rows) byTarget.get(row.target)?.push({ bucket: Number(row.bucket), drift: row.drift });
    for (const [target, buckets] of byTarget) drift.load(target, buckets);
  };

  /** Drift rows on their way to the database: close() waits for them. */
  const driftWrites = new Set<Promise<void>>();
  /**
   * In memory for the page, written through while the target is ours when a
   * quarter hour's count changes (about one row per target a quarter hour; not
   * awaited: a check does not wait for it).
   */
  const driftHistory: DriftHistory = {
    record(target, at, count) {
      const client = session;
      if (!drift.record(target, at, count) || client === undefined || !held.has(targetKey(target))) return;
      const write = client
        .query(
          `INSERT INTO sitesync_watch_drift (target, bucket, drift) VALUES ($1, $2, $3)
           ON CONFLICT (target, bucket) DO UPDATE SET drift = GREATEST(sitesync_watch_drift.drift, excluded.drift)`,
          [target, Math.floor(at / BUCKET_MS), count],
        )
        .then(
          () => {},
          (error: Error) => log('warn', 'coordination: drift not recorded', { target, error: error.message }),
        )
        .finally(() => driftWrites.delete(write));
      driftWrites.add(write);
    },
    series: (target, now) => drift.series(target, now),
    forget: (target) => drift.forget(target),
  };

  return {
    id,
    alerts: state,
    driftHistory,

    async claim(targets): Promise<Claim> {
      const none: Claim = { owned: new Set(), taken: new Set(), replicas: 0 };
      let client: pg.Client;
      try {
        client = await connect();
      } catch (error) {
        log('error', 'coordination: cannot reach the database: checking nothing this cycle', {
          error: (error as Error).message,
        });
        return none;
      }
      try {
        const replicas = await liveReplicas(client);
        const keys = new Map(targets.map((target) => [target, targetKey(target)]));
        const wanted = new Set([...keys.values()].filter((key) => ownerOf(key, replicas) === id));
        const release = [...held].filter((key) => !wanted.has(key));
        if (release.length > 0)
          await client.query('SELECT pg_advisory_unlock($1, k) FROM unnest($2::int[]) AS k', [TARGETS, release]);
        for (const key of release) held.delete(key);
        const missing = [...wanted].filter((key) => !held.has(key));
        const got = await client.query<{ k: number; got: boolean }>(
          'SELECT k, pg_try_advisory_lock($1, k) AS got FROM unnest($2::int[]) AS k',
          [TARGETS, missing],
        );
        const takenKeys = new Set(got.rows.filter((row) => row.got).map((row) => row.k));
        for (const key of takenKeys) held.add(key);
        const owned = new Set(targets.filter((target) => held.has(keys.get(target)!)));
        const taken = new Set(targets.filter((target) => takenKeys.has(keys.get(target)!)));
        await loadAlerts(client, [...taken]);
        await loadDrift(client, [...taken]);
        return { owned, taken, replicas: replicas.length };
      } catch (error) {
        lost(client, (error as Error).message);
        return none;
      }
    },

    async holds(target) {
      const client = session;
      if (client === undefined || !held.has(targetKey(target))) return false;
      try {
        const result = await client.query<{ held: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM (${LOCKS}) l WHERE l.key = $2 AND l.pid = pg_backend_pid()) AS held`,
          [TARGETS, targetKey(target)],
        );
        return result.rows[0]?.held === true;
      } catch {
        return false;
      }
    },

    async close() {
      const client = session;
      session = undefined;
      held = new Set();
      if (client === undefined) return;
      await Promise.all(driftWrites);
      // A clean leave: the others see one replica fewer at their next cycle, not after a cleanup.
      await client.query('DELETE FROM sitesync_watch_replicas WHERE id = $1', [id]).catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
