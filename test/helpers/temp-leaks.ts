/**
 * Vitest global setup: the run's own temporary directory, and the check that
 * the tests left nothing in it. It makes `$TMPDIR/sitesync.run-XXXXXX` and
 * points TMPDIR at it before any worker starts, so `os.tmpdir()` (tempDir in
 * temp.ts, the PostgreSQL cluster's home) is inside; another process on the
 * machine writing `sitesync-*` entries into /tmp cannot fail this run. After
 * the run, any `sitesync-*` entry still there is a leak: the run fails,
 * naming it (also in .test-leaks.json, which scripts/run-tests.mjs counts as
 * a failure, since vitest does not fail on a teardown error). The directory
 * is removed either way. Its name does not start with `sitesync-`, so a run
 * of an older checkout beside this one does not count it as its own leak.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perRun } from './per-run.js';

export const LEAK_REPORT = '.test-leaks.json';
/** TEMP_PREFIX of temp.ts (not imported: that module imports vitest's test API, which belongs to workers). */
const TEMP_PREFIX = 'sitesync-';

interface RunTemp {
  dir: string;
  outer: string | undefined;
}

function start(): RunTemp {
  rmSync(LEAK_REPORT, { force: true });
  const dir = mkdtempSync(join(tmpdir(), 'sitesync.run-'));
  // The PostgreSQL cluster runs as the postgres user and keeps its home in here.
  chmodSync(dir, 0o711);
  const outer = process.env.TMPDIR;
  // Workers start after the global setup and inherit the environment.
  process.env.TMPDIR = dir;
  return { dir, outer };
}

function stop({ dir, outer }: RunTemp): void {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  const left = readdirSync(dir).filter((name) => name.startsWith(TEMP_PREFIX));
  rmSync(dir, { recursive: true, force: true });
  if (left.length === 0) return;
  writeFileSync(LEAK_REPORT, `${JSON.stringify({ tmpdir: dir, left }, null, 2)}\n`);
  throw new Error(`the tests left ${left.length} entries named ${TEMP_PREFIX}* in ${dir}: ${left.join(', ')}`);
}

export default function setup(): () => void {
  return perRun('temp', start, stop).release;
}
