/**
 * Issue 33 item 12, second half: a webhook answering with a redirect was
 * logged as `reason: TypeError`. It is not followed (the URL came from the
 * operator; a redirect could carry the alert elsewhere), and the log says so,
 * without the URL or where it redirects (either may hold a token).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import type { AlertDocument } from '../../src/watch/alerts.js';
import { Webhooks } from '../../src/watch/webhooks.js';
import { manualClock } from '../helpers/manual-clock.js';
import { useCleanups } from './support.js';

const cleanups = useCleanups();

const DOCUMENT: AlertDocument = {
  text: 'sitesync watch: drift on default: a.example',
  source: 'sitesync watch',
  target: 'default',
  alert: 'drift',
  status: 'firing',
  reminder: false,
  domains: ['a.example'],
  since: '2026-07-06T08:05:00.000Z',
  at: '2026-07-06T08:05:00.000Z',
};

it('a webhook that redirects: not followed, and logged as a redirect, never as TypeError', async () => {
  let followed = 0;
  const target = createServer((_request, response) => {
    followed++;
    response.end('ok');
  });
  const hook = createServer((_request, response) => {
    const { port } = target.address() as AddressInfo;
    response.writeHead(302, { location: `http://127.0.0.1:${port}/moved/T0KEN-moved-0123456789` }).end();
  });
  for (const server of [target, hook]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  }
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/T0KEN-0123456789abcdef`;
  const lines: Record<string, unknown>[] = [];
  const webhooks = new Webhooks([{ name: 'ONCALL_WEBHOOK', url }], {
    clock: manualClock(0),
    log: (level, msg, fields) => lines.push({ level, msg, ...fields }),
    attempts: 2,
  });
  webhooks.send(DOCUMENT);
  await webhooks.idle();
  const reason =
    'HTTP 302: the webhook redirects elsewhere; redirects are not followed (set ONCALL_WEBHOOK to the final URL)';
  expect(lines).toEqual([
    { level: 'warn', msg: 'webhook delivery failed, retrying', webhook: 'ONCALL_WEBHOOK', attempt: 1, reason },
    { level: 'error', msg: 'webhook delivery given up', webhook: 'ONCALL_WEBHOOK', attempt: 2, reason },
  ]);
  expect(followed).toBe(0);
  expect(JSON.stringify(lines)).not.toContain('T0KEN');
});
