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
import { allowedOrigins, keyVariable } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';
import { busiestWindow, requestLog, watchInProcess } from './support.js';

const MINUTE = 60_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One reference server on the manual clock; a target per name, each its own account with `sites` sites. */
async function oneService(names: readonly string[], sites: number, extra: (name: string) => string = () => '') {
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
  const env: Record<string, string> = { SITESYNC_ALLOWED_ORIGINS: allowedOrigins([server]) };
  const declared: string[] = [];
  for (const name of names) {
    const account = await server.createAccount();
    env[keyVariable(name)] = account.key;
    declared.push(
      `  - { name: ${name}, url: "${server.url}", key_env: ${keyVariable(name)}, files: [${name}.yaml]${extra(name)} }`,
    );
    const domains = Array.from({ length: sites }, (_, i) => `site${i}.${name}.example`);
    for (const domain of domains)
      await insertWebsite(server, domain, { accountId: account.id, values: STORED_DEFAULTS });
    writeFileSync(
      join(dir, `${name}.yaml`),
      `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`,
    );
  }
  const write = (declarations: string[]) =>
    writeFileSync(
      join(dir, 'websites.yaml'),
      `version: 1\ndefaults:\n  privacy: private\ntargets:\n${declarations.join('\n')}\n`,
    );
  write(declared);
  return { clock, requests, dir, env, declared, write };
}

async function watchOf(service: Awaited<ReturnType<typeof oneService>>, budgetPerMinute: number) {
  const watch = await watchInProcess({
    source: { files: [], targets: [], cwd: service.dir, env: service.env, insecureHttp: false, heals: false },
    intervalMs: MINUTE,
    budgetPerMinute,
    renotifyMs: 24 * 60 * MINUTE,
    webhooks: [],
    clock: service.clock,
    onClient: (_, api) => service.requests.addClient(api),
  });
  cleanups.push(() => watch.close());
  return watch;
}

describe('the request budget', () => {
  it('holds over 20 cycles when three targets on one service need more than it allows', async () => {
    const service = await oneService(['one', 'two', 'three'], 250);
    const { clock, requests } = service;
    const watch = await watchOf(service, 5);
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

  it("is no higher than a target's rate_limit", async () => {
    const service = await oneService(['slow'], 600, () => ', rate_limit: 4');
    const watch = await watchOf(service, 20);
    await watch.run(5);
    expect(service.requests.arrivals.length).toBeGreaterThanOrEqual(5 * 6);
    expect(busiestWindow(service.requests.arrivals)).toBeLessThanOrEqual(4);
  });

  it("drops a target's series when it leaves the configuration", async () => {
    const service = await oneService(['kept', 'gone'], 1);
    const watch = await watchOf(service, 20);
    await watch.run(1);
    expect(await watch.metrics.text()).toContain('target="gone"');
    service.write(service.declared.filter((line) => line.includes('name: kept')));
    await watch.run(2);
    const text = await watch.metrics.text();
    expect(text).toContain('sitesync_websites{target="kept",class="in_sync"} 1');
    expect(text).not.toContain('target="gone"');
    expect(watch.watcher.status().targets.map((target) => target.target)).toEqual(['kept']);
  });
});
