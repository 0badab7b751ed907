/**
 * Issue 33 item 5 under `watch`: a service answering `{"data":[[[[…` nested
 * millions deep kept /healthz silent for 20 s at 1.58 GB. The check refuses
 * the answer from its first bytes (the rest is never read), fails with the
 * reason on /status, and the status server answers throughout.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/api/json-shape.js';
import { holdingServer } from '../helpers/holding-server.js';
import { manualClock } from '../helpers/manual-clock.js';
import { tempDir } from '../helpers/temp.js';
import { getText, useCleanups, watchOneAccount } from './support.js';

const cleanups = useCleanups();

it('a check meeting a deeply nested answer fails with the reason at once; /healthz keeps answering', async () => {
  const hostile = await holdingServer(`{"data":${'['.repeat(1_000_000)}`);
  cleanups.push(() => hostile.close());
  const dir = tempDir('watch-hostile');
  writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n');
  const watch = await watchOneAccount({ url: hostile.url, key: 'watch-hostile-key-0123456789' }, dir, cleanups, {
    clock: manualClock(),
    metricsAddress: { host: '127.0.0.1', port: 0 },
  });
  await watch.run(1);
  await hostile.abandoned;
  const status = JSON.parse((await getText(`${watch.url}/status`)).text);
  expect(status.targets[0].lastCheck).toMatchObject({
    result: 'error',
    error: expect.stringContaining(`: the answer's JSON nests deeper than ${MAX_JSON_DEPTH} levels`),
  });
  expect((await getText(`${watch.url}/healthz`)).status).toBe(200);
  expect(hostile.requests).toBe(1);
});
