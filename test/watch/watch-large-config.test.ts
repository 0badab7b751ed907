/**
 * Issue 33 item 6 under `watch`: a reload of a 4 MB websites.yaml of 190,000
 * unknown keys kept /healthz silent for 8.7 s. The load pauses every 64 KB,
 * so /healthz answers again and again while the file is parsed and checked
 * (counted from the moment the file has been read, seen through the real
 * reader wrapped, to the log line that ends the load; reading pauses by
 * itself); then the last good configuration stays. Times: bench/hostile-config.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { unknownKeysFile } from '../config/helpers.js';
import { manualClock } from '../helpers/manual-clock.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { getText, useCleanups, watchOneAccount } from './support.js';

const cleanups = useCleanups();

/** Set once a configuration file has been read (whole), before it is parsed. */
const reading = vi.hoisted(() => ({ done: false }));
vi.mock('../../src/config/files.js', async (original) => {
  const files = await original<typeof import('../../src/config/files.js')>();
  return {
    ...files,
    readConfigFile: async (...args: Parameters<typeof files.readConfigFile>) => {
      const read = await files.readConfigFile(...args);
      reading.done = true;
      return read;
    },
  };
});

it('/healthz answers while a reload loads a 4 MB file of unknown keys; the last good configuration stays', async () => {
  const server = await startTestServer();
  cleanups.push(() => server.close());
  const dir = tempDir('watch-large-config');
  const file = join(dir, 'websites.yaml');
  writeFileSync(file, 'version: 1\nwebsites:\n  - domain: a.example\n');
  let armed = false;
  let loading: Promise<number> | undefined;
  const watch = await watchOneAccount(server, dir, cleanups, {
    clock: manualClock(),
    metricsAddress: { host: '127.0.0.1', port: 0 },
    // The reload starts: ask /healthz, one request after the other, until the load has ended.
    beforeReload: async () => {
      if (!armed || loading !== undefined) return;
      loading = healthzUntil(`${watch.url}/healthz`, () =>
        watch.lines.some((line) => String(line.msg).startsWith('configuration invalid')),
      );
    },
  });
  await watch.run(1);
  expect(loading).toBeUndefined();
  writeFileSync(file, unknownKeysFile());
  armed = true;
  reading.done = false;
  await watch.run(2);
  const answered = await loading;
  // One answer per pause or two (64 KB each, after reading): before, the parse and checks paused 4 times in all.
  expect(answered, `/healthz answers while parsing`).toBeGreaterThanOrEqual(10);
  const status = JSON.parse((await getText(`${watch.url}/status`)).text);
  expect(status.config).toMatchObject({ ok: false, error: expect.stringContaining('unknown_key_000000') });
  expect(status.targets[0].sites.drift).toEqual(['a.example']); // still checked against the last good one
}, 120_000);

/** GETs `url` again as soon as each answer came, until `done`; the 200 answers given once the file was read. */
async function healthzUntil(url: string, done: () => boolean): Promise<number> {
  let answered = 0;
  while (!done()) if ((await getText(url)).status === 200 && reading.done) answered++;
  return answered;
}
