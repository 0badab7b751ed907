/**
 * `sitesync watch` against three reference servers for an hour of injected
 * time (issue 26, "done means"): drift made through the API shows in
 * /metrics and /status within one interval and fires one webhook, not one a
 * cycle; resolving it fires "resolved"; every server's requests stay within
 * the budget in any minute and none is answered 429; the metrics text parses
 * and each named series is there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseWindow, type Window } from '../../src/watch/window.js';
import { manualClock } from '../helpers/manual-clock.js';
import { parseExposition } from '../helpers/prometheus-text.js';
import { client, insertWebsite, STORED_DEFAULTS, startTestServer, type TestServer } from '../helpers/server.js';
import { allowedOrigins, keyVariable } from '../helpers/targets.js';
import { tempDir } from '../helpers/temp.js';
import { busiestWindow, getText, type Receiver, requestLog, watchInProcess, webhookReceiver } from './support.js';

const NAMES = ['alpha', 'beta', 'gamma'] as const;
const MINUTE = 60_000;
const START = Date.parse('2026-07-06T08:00:00Z');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function threeTargets() {
  const clock = manualClock(START, () => settle());
  const logs = Object.fromEntries(NAMES.map((name) => [name, requestLog(clock)]));
  const settle = async () => {
    for (const log of Object.values(logs)) await log.settle();
  };
  const servers = {} as Record<(typeof NAMES)[number], TestServer>;
  const env: Record<string, string> = {};
  const dir = tempDir('watch');
  const declared: string[] = [];
  for (const name of NAMES) {
    const { throttleClock, log } = logs[name]!;
    const server = await startTestServer({ throttlePerMinute: 60, throttleClock, log });
    cleanups.push(() => server.close());
    servers[name] = server;
    env[keyVariable(name)] = server.key;
    declared.push(`  - { name: ${name}, url: "${server.url}", key_env: ${keyVariable(name)}, files: [${name}.yaml] }`);
    // 150 sites a target: a listing is two pages.
    const domains = Array.from({ length: 150 }, (_, i) => `site${i}.${name}.example`);
    writeFileSync(
      join(dir, `${name}.yaml`),
      `version: 1\nwebsites:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`,
    );
    for (const domain of domains) await insertWebsite(server, domain, { values: STORED_DEFAULTS });
  }
  writeFileSync(
    join(dir, 'websites.yaml'),
    `version: 1\ndefaults:\n  privacy: private\ntargets:\n${declared.join('\n')}\n`,
  );
  env.SITESYNC_ALLOWED_ORIGINS = allowedOrigins(Object.values(servers));
  return { clock, logs, servers, env, dir };
}

/** Each server counted at most `budget` requests in any minute, and answered every one with success (no 429). */
function expectBudgetHeld(logs: Record<string, ReturnType<typeof requestLog>>, budget: number, atLeast: number) {
  for (const name of NAMES) {
    const { arrivals, statuses } = logs[name]!;
    expect(arrivals.length, name).toBeGreaterThanOrEqual(atLeast);
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
    expect(busiestWindow(arrivals), name).toBeLessThanOrEqual(budget);
  }
}

const windowOf = (text: string): Window => parseWindow(text) as Window;
const alertsOf = (receiver: Receiver) => receiver.bodies.map((body) => [body.target, body.alert, body.status]);

describe('sitesync watch over three targets for an hour of injected time', () => {
  it('reports drift once, resolves it, and holds the request budget', async () => {
    const { clock, logs, servers, env, dir } = await threeTargets();
    const receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    const watch = await watchInProcess({
      source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: false },
      intervalMs: 5 * MINUTE,
      budgetPerMinute: 12,
      renotifyMs: 24 * 60 * MINUTE,
      webhooks: [{ name: 'TEAM_WEBHOOK', url: receiver.url }],
      metricsAddress: { host: '127.0.0.1', port: 0 },
      clock,
      onClient: (target, api) => logs[target]?.addClient(api),
    });
    cleanups.push(() => watch.close());

    expect((await getText(`${watch.url}/readyz`)).status).toBe(503);
    await watch.run(1);
    expect((await getText(`${watch.url}/readyz`)).status).toBe(200);
    let status = JSON.parse((await getText(`${watch.url}/status`)).text);
    expect(
      status.targets.map((t: { target: string; counts: { in_sync: number } }) => [t.target, t.counts.in_sync]),
    ).toEqual(NAMES.map((name) => [name, 150]));

    // Drift through the API: someone makes a private site public.
    const beta = logs.beta!;
    const id = (await beta.aside(() => client(servers.beta)('GET', '/api/v1/websites?search=site7.beta.example'))).body
      .data[0].id;
    await beta.aside(() => client(servers.beta)('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '0' } }));
    await watch.run(2);
    status = JSON.parse((await getText(`${watch.url}/status`)).text);
    const betaStatus = status.targets.find((t: { target: string }) => t.target === 'beta');
    expect(betaStatus.sites.drift).toEqual(['site7.beta.example']);
    expect(betaStatus.alerts).toEqual(['drift']);
    let metrics = parseExposition((await getText(`${watch.url}/metrics`)).text);
    expect(metrics.find('sitesync_websites', { target: 'beta', class: 'drift' })[0]?.value).toBe(1);
    expect(metrics.find('sitesync_websites', { target: 'alpha', class: 'drift' })[0]?.value).toBe(0);

    await watch.run(6); // the drift persists for four more cycles: no new webhook
    await watch.webhooks.idle();
    expect(receiver.bodies.map((body) => [body.target, body.alert, body.status])).toEqual([
      ['beta', 'drift', 'firing'],
    ]);
    expect(receiver.bodies[0]?.domains).toEqual(['site7.beta.example']);
    expect(receiver.bodies[0]?.text).toContain('drift on beta: site7.beta.example');

    await beta.aside(() => client(servers.beta)('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '1' } }));
    await watch.run(12); // the rest of the hour
    await watch.webhooks.idle();
    expect(receiver.bodies.map((body) => [body.target, body.alert, body.status])).toEqual([
      ['beta', 'drift', 'firing'],
      ['beta', 'drift', 'resolved'],
    ]);
    expect(clock.now() - START).toBeGreaterThanOrEqual(55 * MINUTE);

    // The budget, counted by the servers: at most 12 requests in any minute, never a 429.
    expectBudgetHeld(logs, 12, 12 * 2); // 12 checks of two pages

    metrics = parseExposition((await getText(`${watch.url}/metrics`)).text);
    for (const name of [
      'sitesync_websites',
      'sitesync_check_last_success_timestamp_seconds',
      'sitesync_checks_total',
      'sitesync_check_duration_seconds_bucket',
      'sitesync_api_requests_total',
      'sitesync_self_heal_changes_total',
      'process_cpu_user_seconds_total',
    ]) {
      expect(metrics.find(name).length, name).toBeGreaterThan(0);
    }
    expect(metrics.types.get('sitesync_check_duration_seconds')).toBe('histogram');
    expect(metrics.find('sitesync_checks_total', { target: 'gamma', result: 'success' })[0]?.value).toBe(12);
    expect(metrics.find('sitesync_api_requests_total', { target: 'alpha', status: '200' })[0]?.value).toBe(
      logs.alpha!.statuses.length,
    );
    // The webhook's URL (with its token) is nowhere: not in the log, not in /status.
    const everything = JSON.stringify(watch.lines) + (await getText(`${watch.url}/status`)).text;
    expect(everything).not.toContain('T0KEN');
    expect(everything).toContain('TEAM_WEBHOOK');
    for (const key of Object.values(env)) expect(everything).not.toContain(key); // nor an API key
  });

  it('heals drift on every target inside its window, a few changes a cycle, with the budget held', async () => {
    const { clock, logs, servers, env, dir } = await threeTargets();
    const receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    await insertWebsite(servers.gamma, 'extra.gamma.example', { values: STORED_DEFAULTS }); // unmanaged: kept
    const watch = await watchInProcess({
      source: { files: [], targets: [], cwd: dir, env, insecureHttp: false, heals: true },
      intervalMs: 5 * MINUTE,
      budgetPerMinute: 6,
      renotifyMs: 24 * 60 * MINUTE,
      heal: {
        mode: 'drift',
        maxPerCycle: 2,
        allowDelete: [],
        windows: [windowOf('Mon-Fri 08:20-23:00')],
        maxFailures: 3,
      },
      webhooks: [{ name: 'TEAM_WEBHOOK', url: receiver.url }],
      clock,
      onClient: (target, api) => logs[target]?.addClient(api),
    });
    cleanups.push(() => watch.close());
    await watch.run(1);
    // Drift through the API: three sites made public on beta, one deleted on alpha.
    const beta = client(servers.beta);
    for (const n of [3, 4, 5]) {
      const id = (await logs.beta!.aside(() => beta('GET', `/api/v1/websites?search=site${n}.beta.example`))).body
        .data[0].id;
      await logs.beta!.aside(() => beta('PATCH', `/api/v1/websites/${id}`, { form: { privacy: '0' } }));
    }
    const alpha = client(servers.alpha);
    const gone = (await logs.alpha!.aside(() => alpha('GET', '/api/v1/websites?search=site9.alpha.example'))).body
      .data[0].id;
    await logs.alpha!.aside(() => alpha('DELETE', `/api/v1/websites/${gone}`));

    await watch.run(4); // until 08:15: outside the window, nothing healed
    expect(watch.watcher.status().targets.map((t) => [t.target, t.counts?.drift])).toEqual([
      ['alpha', 1],
      ['beta', 3],
      ['gamma', 0],
    ]);
    await watch.run(12);
    await watch.webhooks.idle();
    const status = watch.watcher.status().targets;
    expect(status.map((t) => [t.target, t.counts?.in_sync, t.counts?.drift, t.counts?.unmanaged])).toEqual([
      ['alpha', 150, 0, 0],
      ['beta', 150, 0, 0],
      ['gamma', 150, 0, 1],
    ]);
    const healed = watch.lines.filter((line) => line.msg === 'self-heal applied');
    expect(healed.map((line) => [line.target, line.action, line.domain])).toEqual([
      ['alpha', 'create', 'site9.alpha.example'],
      ['beta', 'update', 'site3.beta.example'],
      ['beta', 'update', 'site4.beta.example'],
      ['beta', 'update', 'site5.beta.example'], // the next cycle: at most 2 a cycle
    ]);
    expect(new Set(healed.map((line) => line.time)).size).toBe(3);
    expect(alertsOf(receiver)).toEqual([
      ['alpha', 'drift', 'firing'],
      ['beta', 'drift', 'firing'],
      ['alpha', 'drift', 'resolved'],
      ['beta', 'drift', 'resolved'],
    ]);
    const text = await watch.metrics.text();
    expect(text).toContain('sitesync_self_heal_changes_total{target="beta",action="update",result="applied"} 3');
    expect(text).toContain('sitesync_self_heal_changes_total{target="gamma",action="delete",result="applied"} 0');
    expectBudgetHeld(logs, 6, 12 * 2); // 12 cycles of two-page listings, and the heals
  });
});
