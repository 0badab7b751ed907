/**
 * The status page's drift chart with replicas (issue 35): drift recorded by
 * the replica that holds a target is in PostgreSQL, so the replica that takes
 * the target over (its owner left) shows the same last 24 hours; a quarter
 * hour keeps its largest count; rows older than a day are dropped; a replica
 * that does not hold a target records nothing for it.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresCoordination } from '../../src/watch/coordination/postgres.js';
import { BUCKET_MS } from '../../src/watch/drift-history.js';
import { createTestDatabase } from '../helpers/postgres-database.js';
import { useCleanups } from './support.js';

const cleanups = useCleanups();
const NOW = Date.parse('2026-07-06T12:00:00Z');
const quiet = () => {};

async function rows(url: string): Promise<{ target: string; bucket: number; drift: number }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ target: string; bucket: string; drift: number }>(
      'SELECT target, bucket, drift FROM sitesync_watch_drift ORDER BY target, bucket',
    );
    return result.rows.map((row) => ({ target: row.target, bucket: Number(row.bucket), drift: row.drift }));
  } finally {
    await client.end();
  }
}

describe('the drift history shared through PostgreSQL', () => {
  it('follows a target to the replica that takes it over', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    let now = NOW;
    const a = await postgresCoordination({ url: db.url, log: quiet, id: 'replica-a', now: () => now });
    cleanups.push(() => a.close());
    expect((await a.claim(['shop'])).owned).toEqual(new Set(['shop']));
    const history = a.driftHistory;
    history.record('shop', NOW - 30 * 3_600_000, 7); // over a day old by the time anyone reads it
    history.record('shop', NOW - 2 * BUCKET_MS, 3);
    history.record('shop', NOW - 2 * BUCKET_MS + 60_000, 1); // the same quarter hour: 3 stays, nothing written
    history.record('shop', NOW, 2);
    history.record('blog', NOW, 9); // not held by a: not recorded
    await a.close(); // a leaves (its writes done first): b takes shop at its claim
    expect((await rows(db.url)).map((row) => [row.target, row.drift])).toEqual([
      ['shop', 7],
      ['shop', 3],
      ['shop', 2],
    ]);

    now = NOW + 60_000;
    const b = await postgresCoordination({ url: db.url, log: quiet, id: 'replica-b', now: () => now });
    cleanups.push(() => b.close());
    expect((await b.claim(['shop'])).taken).toEqual(new Set(['shop']));
    const counts = b.driftHistory.series('shop', now).counts;
    expect(counts.filter((count) => count !== null)).toEqual([3, 2]);
    expect(counts.at(-1)).toBe(2);
    expect(counts.at(-3)).toBe(3);
    expect((await rows(db.url)).map((row) => row.drift)).toEqual([3, 2]); // the day-old row is gone
  });
});
