// Answers that used to send people the wrong way (issue 16 item 17), each injected by the fault proxy
// between the client and the real reference server: a redirect, a stalled server, a Retry-After of
// 27 hours, a create answered 200 with a body that is not a website record.
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientOptions } from '../../src/api/index.js';
import { SitesyncError } from '../../src/model/errors.js';
import { type Fault, type FaultProxy, scripted, startFaultProxy } from '../helpers/fault-proxy.js';
import { desired, MODES, type Setup, setup } from './support.js';

describe.each(MODES)('misleading answers through the fault proxy (%s server)', (mode) => {
  let env: Setup;
  let proxy: FaultProxy;
  afterEach(async () => {
    await proxy.close();
    await env.close();
  });

  async function start(fault: Fault, method?: string, retryAfterSeconds = 0, options: Partial<ClientOptions> = {}) {
    env = await setup(mode);
    proxy = await startFaultProxy({ target: env.server.url, plan: scripted([fault], method), retryAfterSeconds });
    return env.connect({ url: proxy.url, ...options });
  }

  const requests = () => proxy.log.map((entry) => `${entry.method} ${entry.fault}`);
  const stored = () => env.server.server.store.countWebsites(env.server.accountId);

  it.each<Fault>(['redirect-301', 'redirect-308'])(
    '%s: a redirect with its Location, not a rejected key',
    async (fault) => {
      const client = await start(fault);
      const error = await client.listWebsites().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SitesyncError);
      expect(error).toMatchObject({ code: 'protocol', details: { status: Number(fault.slice(-3)) } });
      const host = new URL(proxy.url).host;
      expect((error as Error).message).toBe(
        `GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 → ${fault.slice(-3)}: the server redirects to https://${host}/api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1; sitesync does not follow redirects: if the service moved, set --url (or api.url) to that address`,
      );
      expect(requests()).toEqual([`GET ${fault}`]); // neither followed nor retried
    },
  );

  it('a stalled server: a notice while waiting, naming the request and how long', async () => {
    const controller = new AbortController();
    const notices: string[] = [];
    const client = await start('stall', 'GET', 0, {
      stallNoticeMs: 50,
      timeouts: { headersMs: 60_000, operationMs: 60_000 },
      notice: (line) => {
        notices.push(line);
        controller.abort(); // the notice came: the test has seen what it needs
      },
    });
    const error = await client.listWebsites({ signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'interrupted' });
    expect(notices).toEqual([
      expect.stringMatching(
        new RegExp(
          `^still waiting for an answer to GET ${proxy.url}/api/v1/websites\\?sort_by=id&sort=asc&per_page=100&page=1 \\(\\d+(\\.\\d)? s\\)$`,
        ),
      ),
    ]);
  });

  it('a Retry-After of 27 hours: says what the server asked and gives up at once', async () => {
    const client = await start('throttle', 'GET', 27 * 3600);
    const error = await client.listWebsites().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'rate_limited', details: { status: 429, retryAfterMs: 27 * 3_600_000 } });
    expect((error as Error).message).toBe(
      'GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 → 429: the server asked to wait 27 h (Retry-After: 97200); giving up: a request may take at most 10 s (--timeout)',
    );
    expect((error as Error).message).not.toContain('--rate-limit');
    expect(requests()).toEqual(['GET throttle']);
  });

  it('a create answered 200 with a body that is not a record, and not stored: looked up, never sent again', async () => {
    const client = await start('unreadable-200', 'POST');
    const error = await client
      .createWebsite(desired('locked.example.com', { privacy: 'password' }, 'a-site-password-1234'))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'protocol' });
    expect((error as Error).message).toBe(
      "POST /api/v1/websites → 200 without a website record (a website record has no valid id (none)); locked.example.com is not in the account, so it was not created; not sent again: the service answered success, and each attempt carries the website password. Is --url the service's API?",
    );
    expect(requests()).toEqual(['POST unreadable-200', 'GET pass']); // 1 POST + 1 search, no resend
    expect(await stored()).toBe(0);
  });

  it('a create answered 200 with a body that is not a record, but stored: found by the lookup', async () => {
    const client = await start('commit-then-unreadable-200', 'POST');
    const created = await client.createWebsite(desired('stored.example.com', { email: true }));
    expect(created).toMatchObject({ domain: 'stored.example.com', settings: { email: true } });
    expect(requests()).toEqual(['POST commit-then-unreadable-200', 'GET pass']); // 1 POST + 1 search
    expect(await stored()).toBe(1);
  });
});
