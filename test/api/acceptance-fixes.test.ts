/**
 * Findings of the acceptance test, against the reference server over real
 * HTTP: any integer `email` (quirks), one unreadable setting does not fail the
 * listing, an abort while waiting on the limiter is `interrupted`, long waits
 * are announced, and IPv6 entries compare in canonical form.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIELDS, sameValue } from '../../src/model/website.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { insertWebsite, client as rawClient } from '../helpers/server.js';
import { type Setup, setup } from './support.js';

describe('acceptance findings (reference server, real HTTP)', () => {
  let env: Setup;
  afterEach(() => env.close());

  it('quirks: email=7 (any integer is accepted) reads as on and does not break the listing', async () => {
    env = await setup('phpanalytics-v31');
    const api = rawClient(env.server);
    const created = await api('POST', '/api/v1/websites', { form: { domain: 'f.q.test', email: '7' } });
    expect(created.status).toBe(201);
    expect((await api('POST', '/api/v1/websites', { form: { domain: 'g.q.test', email: '-2' } })).status).toBe(201);
    expect((await api('POST', '/api/v1/websites', { form: { domain: 'h.q.test', email: '0' } })).status).toBe(201);
    const sites = await env.client.listWebsites();
    expect(sites.map((site) => [site.domain, site.settings.email])).toEqual([
      ['f.q.test', true],
      ['g.q.test', true],
      ['h.q.test', false],
    ]);
  });

  it('one unreadable setting leaves that setting unknown, says so once, and the listing is complete', async () => {
    env = await setup('normal');
    await insertWebsite(env.server, 'ok.example.com');
    await insertWebsite(env.server, 'odd.example.com', { values: { privacy: 5 } });
    const lines: string[] = [];
    const client = env.connect({ notice: (line) => lines.push(line) });
    const sites = await client.listWebsites();
    expect(sites.map((site) => site.domain)).toEqual(['ok.example.com', 'odd.example.com']);
    expect(sites[1]?.settings).toEqual({
      email: false,
      excludeBots: true,
      excludeParams: [],
      excludeIps: [],
      favorite: false,
    });
    await client.listWebsites();
    expect(lines).toEqual([
      'website odd.example.com (2): privacy 5 cannot be read; it is not compared (the rest of the listing is used)',
    ]);
  });

  it('an abort while a request waits on the rate limiter ends as interrupted, not the raw reason', async () => {
    env = await setup('normal');
    await insertWebsite(env.server, 'a.example.com');
    const client = env.connect({ rateLimitPerMinute: 1, rateLimitWindowMs: 60_000 });
    await client.getWebsite(1);
    const controller = new AbortController();
    const waiting = client.getWebsite(1, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('SIGTERM')), 50);
    await expect(waiting).rejects.toMatchObject({
      name: 'SitesyncError',
      code: 'interrupted',
      message: 'interrupted: GET /api/v1/websites/1 was not completed (SIGTERM)',
    });
  });

  it('announces a long pacing wait before it starts', async () => {
    env = await setup('normal');
    await insertWebsite(env.server, 'a.example.com');
    const lines: string[] = [];
    const client = env.connect({
      rateLimitPerMinute: 1,
      rateLimitWindowMs: 60_000,
      noticeAfterMs: 1_000,
      notice: (line) => lines.push(line),
    });
    await client.getWebsite(1);
    const controller = new AbortController();
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'interrupted' });
    expect(lines).toEqual(['pacing at 1 requests/min: waiting 61 s']);
  });

  it("announces a 429's Retry-After wait as rate limited", async () => {
    env = await setup('normal', { throttlePerMinute: 1, throttleWindowMs: 60_000 });
    await insertWebsite(env.server, 'a.example.com');
    const lines: string[] = [];
    const client = env.connect({
      rateLimitPerMinute: 0,
      timeouts: { operationMs: 120_000 },
      noticeAfterMs: 1_000,
      notice: (line) => lines.push(line),
    });
    await client.getWebsite(1);
    const controller = new AbortController();
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'interrupted' });
    expect(lines).toEqual(['rate limited: waiting 60 s (429 from server)']);
  });

  it('announces a long backoff, and an abort during it is interrupted', async () => {
    env = await setup('normal');
    const proxy = await startFaultProxy({ target: env.server.url, plan: () => 'html-503' });
    const lines: string[] = [];
    const client = env.connect({
      url: proxy.url,
      retry: { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      noticeAfterMs: 500,
      notice: (line) => lines.push(line),
    });
    const controller = new AbortController();
    const waiting = client.getWebsite(1, { signal: controller.signal }).catch((error: unknown) => error);
    for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error('SIGINT'));
    expect(await waiting).toMatchObject({
      code: 'interrupted',
      message: 'interrupted: GET /api/v1/websites/1 was not completed (SIGINT)',
    });
    expect(lines).toEqual(['waiting 1 s before retry 2/4 of GET /api/v1/websites/1 (HTTP 503)']);
    await proxy.close();
  });

  it('IPv6 entries compare compressed and lowercase: no change for the same address written differently', async () => {
    env = await setup('normal');
    await rawClient(env.server)('POST', '/api/v1/websites', {
      form: { domain: 'v6.example.com', exclude_ips: '2001:DB8:0:0::1\n2001:0DB8::/32\n10.0.0.1\nnot-an-ip' },
    });
    const [site] = await env.client.listWebsites();
    expect(site?.settings.excludeIps).toEqual(['10.0.0.1', '2001:db8::/32', '2001:db8::1', 'not-an-ip']);
    const configured = FIELDS.excludeIps.canonical(['2001:db8::1', '2001:db8::/32', '10.0.0.1', 'not-an-ip']);
    expect(sameValue(configured, site?.settings.excludeIps)).toBe(true);
  });
});
