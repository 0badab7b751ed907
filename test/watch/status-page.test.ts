/**
 * The status page over HTTP (the browser suite, test/browser/, looks at it in
 * Chromium): the fleet and a target's page made from the model `/status`
 * serialises, every class with the plan's words, hostile domains escaped the
 * way every output escapes them, a Content-Security-Policy without scripts,
 * filters and bad queries, the token (bearer or the login form's cookie) and
 * the `url` alerts gain with --public-url.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusToken } from '../../src/watch/page/access.js';
import { HTML_DOMAIN, pageFleet } from '../helpers/status-page-fleet.js';
import { MINUTE, type Receiver, watchClock, watchInProcess, webhookReceiver } from './support.js';

const TOKEN = 'status-token-0123456789abcdef';
/** Control and invisible format characters: never raw in a page. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

/** The fleet watched for one cycle, for every test of a describe block (nothing here changes it). */
function watchedFleet(extra: Partial<Parameters<typeof watchInProcess>[0]> = {}) {
  const cleanups: (() => Promise<void>)[] = [];
  const context = {} as { watch: Awaited<ReturnType<typeof watchInProcess>>; receiver: Receiver };
  beforeAll(async () => {
    const fleet = await pageFleet();
    cleanups.push(() => fleet.close());
    context.receiver = await webhookReceiver();
    cleanups.push(() => context.receiver.close());
    context.watch = await watchInProcess({
      source: { files: [], targets: [], cwd: fleet.repo.dir, env: fleet.env, insecureHttp: false, heals: false },
      intervalMs: 5 * MINUTE,
      budgetPerMinute: 20,
      renotifyMs: 24 * 60 * MINUTE,
      webhooks: [{ name: 'TEAM_WEBHOOK', url: context.receiver.url }],
      metricsAddress: { host: '127.0.0.1', port: 0 },
      clock: watchClock(Date.parse('2026-07-06T12:00:00Z')),
      ...extra,
    });
    cleanups.push(() => context.watch.close());
    await context.watch.run(1);
    await context.watch.webhooks.idle();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return Object.assign(context, {
    get: (path: string, init?: RequestInit) => fetch(`${context.watch.url}${path}`, init),
  });
}

describe('the status page', () => {
  const watched = watchedFleet({ publicUrl: 'https://watch.example.com/sitesync' });
  const get = watched.get;

  it('shows the fleet sorted by attention, each target with its classes, and a target with the plan’s words', async () => {
    const fleet = await get('/');
    expect(fleet.status).toBe(200);
    expect(fleet.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = fleet.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await fleet.text();
    // Failing first, then the conflict, then the one in sync.
    const order = [...html.matchAll(/<td class="name"><a href="targets\/([a-z]+)">/g)].map((match) => match[1]);
    expect(order).toEqual(['broken', 'shop', 'blog']);
    expect(html).toContain('401');
    expect(html).not.toMatch(/<script|style="/);

    const shop = await (await get('/targets/shop')).text();
    expect(shop).toContain('~ b.example (id 2) will be updated [drift]');
    expect(shop).toContain('privacy: public → private [drift]');
    expect(shop).toContain('+ c.example will be created [pending]');
    expect(shop).toContain('exclude_params: [conflict]');
    expect(shop).toMatch(/l-removed">\s*- ref</);
    expect(shop).toContain('at the baseline, exclude_params: []');
    expect(shop).toMatch(/<section id="conflict"[\s\S]*<section id="drift"[\s\S]*<section id="pending"/);
    expect(shop).toContain('id="site-b.example"');
  });

  it('shows hostile domains escaped, as the terminal does, never raw', async () => {
    for (const path of ['/', '/targets/shop']) {
      const html = await (await get(path)).text();
      expect(html).not.toMatch(INVISIBLE);
      expect(html).not.toContain(HTML_DOMAIN.toLowerCase());
    }
    const shop = await (await get('/targets/shop')).text();
    expect(shop).toContain('\\u202Eelpmaxe.live');
    expect(shop).toContain('&lt;img src=x&gt;.example');
    expect(shop).toContain('id="site-_202e_elpmaxe.live"');
  });

  it('filters by standing and name, and answers a bad query or an unknown target clearly', async () => {
    const rows = async (query: string) =>
      [...(await (await get(`/${query}`)).text()).matchAll(/<td class="name"><a href="targets\/([a-z]+)">/g)].map(
        (match) => match[1],
      );
    expect(await rows('?class=failing')).toEqual(['broken']);
    expect(await rows('?class=in_sync')).toEqual(['blog']);
    expect(await rows('?q=SHO')).toEqual(['shop']);
    expect(await rows('?class=drift')).toEqual([]); // shop's conflict comes first: it stands in conflict
    const bad = await get('/?class=everything');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('class &quot;everything&quot; is not one of failing, conflict');
    expect((await get('/?refresh=1')).status).toBe(400);
    const missing = await get('/targets/%3Cnope%3E');
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('no target named &lt;nope&gt;');
    expect((await get('/', { method: 'DELETE' })).status).toBe(405);
  });

  it('is where alerts link with --public-url: the target’s page, at its class', () => {
    const byAlert = Object.fromEntries(watched.receiver.bodies.map((body) => [`${body.target} ${body.alert}`, body]));
    expect(byAlert['shop drift']?.url).toBe('https://watch.example.com/sitesync/targets/shop#drift');
    expect(byAlert['shop conflict']?.text).toMatch(/ https:\/\/watch\.example\.com\/sitesync\/targets\/shop#conflict$/);
    expect(byAlert['broken check_failing']?.url).toBe('https://watch.example.com/sitesync/targets/broken');
  });

  it('lists the alerts sent on the target’s page, newest first, with how many sites each named', async () => {
    const shop = watched.watch.watcher.status().targets.find((target) => target.target === 'shop');
    expect(shop?.recentAlerts.map((alert) => [alert.alert, alert.status, alert.sites])).toEqual([
      ['conflict', 'firing', 1],
      ['drift', 'firing', 1],
    ]);
    expect(await (await get('/targets/shop')).text()).toMatch(/<h2>Last alerts<\/h2>[\s\S]*k-conflict[\s\S]*k-drift/);
  });

  it('with a meta refresh only when asked for', async () => {
    expect(await (await get('/')).text()).not.toContain('http-equiv="refresh"');
    expect(await (await get('/targets/shop?refresh=60')).text()).toContain('<meta http-equiv="refresh" content="60">');
  });
});

describe('the status token', () => {
  const { get } = watchedFleet({ statusToken: new StatusToken(TOKEN) });

  it('closes the page and /status; a bearer token or the login cookie opens them; probes stay open', async () => {
    const closed = await get('/targets/shop');
    expect(closed.status).toBe(401);
    const login = await closed.text();
    expect(login).toContain('action="../login"');
    expect(login).toContain('name="next" value="targets/shop"');
    expect(login).not.toContain('b.example');
    expect((await get('/status')).status).toBe(401);
    for (const open of ['/healthz', '/readyz', '/metrics', '/page.css'])
      expect((await get(open)).status, open).toBe(200);

    const bearer = { headers: { authorization: `Bearer ${TOKEN}` } };
    expect((await get('/status', bearer)).status).toBe(200);
    expect((await get('/', bearer)).status).toBe(200);

    const post = (token: string) =>
      get('/login', {
        method: 'POST',
        body: new URLSearchParams({ token, next: 'targets/shop' }),
        redirect: 'manual',
      });
    const wrong = await post('not-the-token-0123456789');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That is not the token.');
    const right = await post(TOKEN);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('./targets/shop');
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^sitesync_status=[\w-]+; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await get('/targets/shop', { headers: { cookie: session } })).status).toBe(200);
    expect((await get('/targets/shop', { headers: { cookie: 'sitesync_status=forged' } })).status).toBe(401);
  });

  it('refuses guessing: ten wrong tokens a minute, then 429 even for the right one', async () => {
    const post = (token: string) => get('/login', { method: 'POST', body: new URLSearchParams({ token }) });
    // One wrong token was sent by the test above, on the same clock minute.
    for (let attempt = 1; attempt < 10; attempt++)
      expect((await post(`wrong-${attempt}-0123456789abc`)).status).toBe(401);
    expect((await post(TOKEN)).status).toBe(429);
  });
});
