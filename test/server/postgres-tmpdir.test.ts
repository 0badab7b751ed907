// The throwaway PostgreSQL cluster starts when TMPDIR is a directory the
// postgres user cannot enter (a private 0700 TMPDIR, issue 38 item 11): its
// directory goes where that user can reach, and goes away with stop().
import { chmodSync, existsSync, readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { startThrowawayCluster } from '../helpers/postgres-cluster.js';
import { tempDir } from '../helpers/temp.js';

it('starts with a TMPDIR of mode 0700 owned by root', async () => {
  const outer = process.env.TMPDIR;
  const closed = tempDir('closed-tmpdir');
  chmodSync(closed, 0o700);
  process.env.TMPDIR = closed;
  try {
    const cluster = await startThrowawayCluster();
    cluster.stop();
    expect(cluster.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+$/);
    expect(readdirSync(closed)).toEqual([]);
  } finally {
    process.env.TMPDIR = outer;
  }
  expect(existsSync(closed)).toBe(true);
}, 60_000);
