/**
 * Vitest global setup: remembers the `sitesync-*` entries of the temp
 * directory (os.tmpdir(), which honours TMPDIR) before the run, and fails the
 * run if there are more after it, naming the new ones. It also writes them
 * to .test-leaks.json, which scripts/run-tests.mjs counts as a failure.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const PREFIX = 'sitesync-';
export const LEAK_REPORT = '.test-leaks.json';

function entries(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(PREFIX));
}

export default function setup(): () => void {
  rmSync(LEAK_REPORT, { force: true });
  const before = new Set(entries());
  return () => {
    const after = entries();
    if (after.length <= before.size) return;
    const left = after.filter((name) => !before.has(name));
    writeFileSync(LEAK_REPORT, `${JSON.stringify({ tmpdir: tmpdir(), left }, null, 2)}\n`);
    throw new Error(
      `the tests left ${after.length - before.size} entries named ${PREFIX}* in ${tmpdir()}: ${left.join(', ')}`,
    );
  };
}
