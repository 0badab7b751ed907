/**
 * Reading what the service stores, against the reference server over real
 * HTTP: any integer `email` (quirks; on only at 1), one unreadable setting does not fail the
 * listing, and IPv6 entries compare in canonical form.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIELDS, sameValue } from '../../src/model/website.js';
import { insertWebsite, client as rawClient } from '../helpers/server.js';
import { type Setup, setup } from './support.js';

describe('reading stored values (reference server, real HTTP)', () => {
  let env: Setup;
  afterEach(() => env.close());
  it('quirks: email=7 (any integer is accepted) reads as off (reports go WHERE email = 1) and does not break the listing', async () => {
    env = await setup('phpanalytics-v31');
    const api = rawClient(env.server);
    const created = await api('POST', '/api/v1/websites', { form: { domain: 'f.q.test', email: '7' } });
    expect(created.status).toBe(201);
    expect((await api('POST', '/api/v1/websites', { form: { domain: 'g.q.test', email: '-2' } })).status).toBe(201);
    expect((await api('POST', '/api/v1/websites', { form: { domain: 'h.q.test', email: '0' } })).status).toBe(201);
    const sites = await env.client.listWebsites();
    expect(sites.map((site) => [site.domain, site.settings.email])).toEqual([
      ['f.q.test', false],
      ['g.q.test', false],
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
