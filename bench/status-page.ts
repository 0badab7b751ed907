/**
 * The status page for 1,000 targets in Chromium (`npm run bench:page`; needs
 * /usr/bin/chromium, like the browser suite). A real watch (loop, status
 * server, page routes) over a synthetic engine port: 1,000 targets on 100
 * services, some drifting, pending, in conflict or failing, checked once.
 * Then, in Chromium, the fleet page (its first page: PAGE_SIZE rows, the
 * totals over all 1,000) is loaded ROUNDS times in a fresh tab, and so is a
 * bare baseline in the same run: the same rows as a plain table (no
 * stylesheet, no bars, no links) from a bare node:http server, the two
 * alternating. Reported: the page's size, the server's time to make it, and
 * the browser's time to DOMContentLoaded and to the load event (medians and
 * fastest), with the ratio to the baseline. Goal: under a second to the load
 * event.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../src/api/clock.js';
import type { Change } from '../src/model/plan.js';
import { defaultSettings } from '../src/model/website.js';
import { createLogger, startWatch } from '../src/watch/index.js';
import type { CheckResult, WatchPort } from '../src/watch/port.js';
import { launchChromium } from '../test/browser/browser.js';
import { median } from './support.js';

const TARGETS = 1_000;
const SERVICES = 100;
const ROUNDS = 15;

const nameOf = (index: number) => `team-${String(index).padStart(4, '0')}`;

function drifted(domain: string, id: number, changeClass: 'drift' | 'conflict'): Change {
  return {
    action: 'update',
    domain,
    id,
    before: { ...defaultSettings(), privacy: 'public' },
    after: defaultSettings(),
    fields: [{ field: 'privacy', before: 'public', after: 'private', class: changeClass }],
    ignored: [],
    fingerprint: 'bench',
    class: changeClass,
  };
}

/** Target i: every 25th fails, every 31st has a conflict, every 7th drift, every 11th pending. */
function checkOf(index: number): CheckResult {
  if (index % 25 === 3)
    throw new Error(`the API key was rejected by https://stats-${index % SERVICES}.example.com (401)`);
  const name = nameOf(index);
  const drift = index % 7 === 0 ? Array.from({ length: 1 + (index % 5) }, (_, i) => `d${i}.${name}.example`) : [];
  const conflict = index % 31 === 0 ? [`c.${name}.example`] : [];
  const pending = index % 11 === 0 ? [`p.${name}.example`, `q.${name}.example`] : [];
  const unmanaged = index % 3 === 0 ? [`u.${name}.example`] : [];
  const inSync = 200 + ((index * 37) % 1800);
  const changes = [
    ...drift.map((domain) => ({ domain, action: 'update' as const, class: 'drift' as const })),
    ...conflict.map((domain) => ({ domain, action: 'update' as const, class: 'conflict' as const })),
    ...pending.map((domain) => ({ domain, action: 'update' as const, class: 'pending' as const })),
  ];
  return {
    counts: {
      in_sync: inSync,
      pending: pending.length,
      drift: drift.length,
      conflict: conflict.length,
      unmanaged: unmanaged.length,
    },
    sites: { pending, drift, conflict, unmanaged },
    changes,
    differences: [
      ...drift.map((domain, i) => ({ domain, class: 'drift' as const, change: drifted(domain, i + 1, 'drift') })),
      ...conflict.map((domain) => ({ domain, class: 'conflict' as const, change: drifted(domain, 99, 'conflict') })),
    ],
    unsafe: false,
  };
}

const port: WatchPort = {
  reload: async () => ({
    ok: true,
    targets: Array.from({ length: TARGETS }, (_, index) => ({
      name: nameOf(index),
      service: `https://stats-${index % SERVICES}.example.com`,
      checkable: true,
    })),
    reloaded: [],
    changed: true,
  }),
  check: async (target) => checkOf(Number(target.slice('team-'.length))),
  heal: async () => [],
  close: async () => {},
};

/** The same rows as a plain table: what any page of these rows costs this browser. */
function barePage(html: string): string {
  const rows = [...html.matchAll(/<tr><td class="name">([\s\S]*?)<\/tr>/g)].map(
    (match) => `<tr><td>${(match[1] ?? '').replace(/<[^>]+>/g, ' ')}</td></tr>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title></head><body><table>${rows.join('\n')}</table></body></html>`;
}

async function main(): Promise<void> {
  const log = createLogger({ format: 'json', level: 'error', now: Date.now, write: () => {} });
  const watch = await startWatch({
    source: { files: [], targets: [], cwd: process.cwd(), env: {}, insecureHttp: false, heals: false },
    port,
    intervalMs: 2_000,
    budgetPerMinute: 20,
    renotifyMs: 86_400_000,
    webhooks: [],
    metricsAddress: { host: '127.0.0.1', port: 0 },
    clock: systemClock,
    now: Date.now,
    log,
  });
  await watch.run(1);
  const pageUrl = `${watch.url}/`;
  const serverTimes: number[] = [];
  let html = '';
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    html = await (await fetch(pageUrl)).text();
    serverTimes.push(performance.now() - started);
  }
  const bare = barePage(html);
  const bareServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(bare);
  });
  await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/`;

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    /** One load in a fresh tab: when the DOM was ready and when the load event ended, from navigation start. */
    const load = async (url: string) => {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      // Evaluated in the page (a string: this project's TypeScript has no DOM types).
      const timing = (await page.evaluate(`(() => {
        const navigation = performance.getEntriesByType('navigation')[0];
        return { ready: navigation.domContentLoadedEventEnd, load: navigation.loadEventEnd };
      })()`)) as { ready: number; load: number };
      await page.close();
      return timing;
    };
    // Page and baseline alternate, so the machine's load falls on both alike.
    const rounds: { page: { ready: number; load: number }; bare: { ready: number; load: number } }[] = [];
    for (let round = 0; round < ROUNDS; round++) rounds.push({ page: await load(pageUrl), bare: await load(bareUrl) });
    const of = (which: 'page' | 'bare', key: 'ready' | 'load') => rounds.map((round) => round[which][key]);
    const row = (label: string, key: 'ready' | 'load') => {
      const page = median(of('page', key));
      const bare = median(of('bare', key));
      const fastest = `${Math.min(...of('page', key)).toFixed(0)} / ${Math.min(...of('bare', key)).toFixed(0)} ms`;
      console.log(
        `| Chromium: ${label} | ${page.toFixed(0)} ms | ${bare.toFixed(0)} ms | ${(page / bare).toFixed(2)} | ${fastest} |`,
      );
      return page;
    };
    const rows = (html.match(/<tr><td class="name">/g) ?? []).length;
    console.log(
      `| ${TARGETS} targets, the first page (${rows} rows); median of ${ROUNDS} | status page | bare table | ratio | fastest (page / bare) |`,
    );
    console.log('|---|---:|---:|---:|---:|');
    console.log(
      `| HTML size | ${(html.length / 1024).toFixed(0)} KiB | ${(bare.length / 1024).toFixed(0)} KiB | ${(html.length / bare.length).toFixed(1)} | |`,
    );
    console.log(
      `| server: GET / (status model + HTML) | ${median(serverTimes).toFixed(0)} ms | | | ${Math.min(...serverTimes).toFixed(0)} ms |`,
    );
    row('DOMContentLoaded', 'ready');
    const loaded = row('load event', 'load');
    console.log(loaded < 1000 ? 'goal met: the page renders in under a second' : 'GOAL MISSED: over a second');
  } finally {
    await browser.close();
    bareServer.close();
    await watch.close();
  }
}

await main();
