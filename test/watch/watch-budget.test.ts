/**
 * The request budget is never exceeded, retries and listings included, even
 * when the checks need more than it allows: three targets on one service (one
 * budget, as the service counts per client IP) whose listings need 9 requests
 * a minute against a budget of 5, over 20 cycles of injected time, counted by
 * the server itself; and a 503 page retried still counts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../helpers/manual-clock.js';
import { insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { busiestWindow, requestLog, watchInProcess } from './support.js';

const MINUTE = 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the request budget', () => {
  it('holds over 20 cycles when three targets on one service need more than it allows', async () => {
    let settle = async () => {};
    const clock = manualClock(Date.parse('2026-07-06T08:00:00Z'), () => settle());
    const requests = requestLog(clock);
    settle = requests.settle;
    const server = await startTestServer({
      throttlePerMinute: 60,
      throttleClock: requests.throttleClock,
      log: requests.log,
    });
    cleanups.push(() => server.close());
    const dir = tempDir('watch-budget');
    const env: Record<string, string> = {};
    const declared: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const account = await server.createAccount();
      env[`${name.toUpperCase()}_KEY`] = account.key;
      declared.push(
        `  - { name: ${name}, url: "${server.url}", key_env: ${name.toUpperCase()}_KEY, files: [${name}.yaml] }`,
      );
      const domains = Array.from({ length: 250 }, (_, i) => `site${i}.${name}.example`);
      for (const domain of domains)
        await insertWebsite(server, domain, { accountId: account.id, values: STORED_DEFAULTS });
      writeFileSync(
        join(dir, `${name}.yaml`),
        `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`,
      );
    }
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\ndefaults:\n  privacy: private\ntargets:\n${declared.join('\n')}\n`,
    );
    const watch = await watchInProcess({
      source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: false },
      intervalMs: MINUTE,
      budgetPerMinute: 5,
      renotifyMs: 24 * 60 * MINUTE,
      webhooks: [],
      clock,
      onClient: (_, api) => requests.addClient(api),
    });
    cleanups.push(() => watch.close());
    await watch.run(20);

    const status = watch.watcher.status();
    expect(status.targets.map((target) => [target.target, target.counts?.in_sync])).toEqual([
      ['one', 250],
      ['two', 250],
      ['three', 250],
    ]);
    expect(requests.arrivals.length).toBeGreaterThanOrEqual(20 * 3 * 3); // 20 cycles × 3 targets × 3 pages
    expect(requests.statuses.filter((status) => status !== 200)).toEqual([]);
    expect(busiestWindow(requests.arrivals)).toBeLessThanOrEqual(5);
    // The checks take longer than the interval: the cycles stretch instead of the budget.
    expect(clock.now() - Date.parse('2026-07-06T08:00:00Z')).toBeGreaterThan(20 * MINUTE);
  });
});
