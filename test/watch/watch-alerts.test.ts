/**
 * Alerts on transitions: checks that start failing fire once, a condition
 * that persists is re-sent only after --renotify, its end fires "resolved";
 * a webhook that fails is retried with backoff without holding the checks
 * back, and only the variable's name is ever logged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertWebsite, STORED_DEFAULTS, startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MINUTE, useCleanups, watchClock, watchOneAccount, webhookReceiver } from './support.js';

const cleanups = useCleanups();

describe('alerts', () => {
  it('fire on failing checks, remind after --renotify, resolve, and retry a failing webhook', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    await insertWebsite(server, 'a.example', { values: STORED_DEFAULTS });
    const dir = tempDir('watch-alerts');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n    privacy: private\n');
    const receiver = await webhookReceiver(2); // the first two deliveries fail with 503
    cleanups.push(() => receiver.close());
    const watch = await watchOneAccount(server, dir, cleanups, {
      intervalMs: 5 * MINUTE,
      renotifyMs: 30 * MINUTE,
      webhooks: [{ name: 'ONCALL_WEBHOOK', url: receiver.url }],
      clock: watchClock(Date.parse('2026-07-06T12:00:00Z')),
    });
    await watch.run(1);
    await server.setAccount(server.accountId, { apiAccess: false }); // every check now fails (403)
    await watch.run(9); // eight failing cycles: 40 minutes
    await server.setAccount(server.accountId, { apiAccess: true });
    await watch.run(10);
    await watch.webhooks.idle();

    expect(receiver.bodies.map((body) => [body.alert, body.status, body.reminder])).toEqual([
      ['check_failing', 'firing', false],
      ['check_failing', 'firing', true],
      ['check_failing', 'resolved', false],
    ]);
    expect(receiver.bodies[0]?.reason).toBeTruthy();
    expect(receiver.bodies[2]?.text).toBe('sitesync watch: resolved on default: checks failing');
    const retries = watch.lines.filter((line) => line.msg === 'webhook delivery failed, retrying');
    expect(retries.map((line) => [line.webhook, line.reason])).toEqual([
      ['ONCALL_WEBHOOK', 'HTTP 503'],
      ['ONCALL_WEBHOOK', 'HTTP 503'],
    ]);
    expect(JSON.stringify(watch.lines)).not.toContain(receiver.url);
    const text = await watch.metrics.text();
    expect(text).toContain('sitesync_checks_total{target="default",result="error"} 8');
    expect(text).toContain('sitesync_api_requests_total{target="default",status="403"} 8');
  });

  it('never hold the checks back: a webhook that never answers', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const dir = tempDir('watch-alerts');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: missing.example\n');
    const receiver = await webhookReceiver(0, true);
    cleanups.push(() => receiver.close());
    const watch = await watchOneAccount(server, dir, cleanups, {
      webhooks: [{ name: 'SLOW_WEBHOOK', url: receiver.url }],
      clock: watchClock(0),
    });
    await watch.run(5);
    expect(watch.watcher.status().cycles).toBe(5);
    expect(watch.watcher.status().targets[0]?.alerts).toEqual(['drift']);
    await receiver.firstRequest; // the alert went out, and is still unanswered
    expect(receiver.received).toBe(1);
  });
});
