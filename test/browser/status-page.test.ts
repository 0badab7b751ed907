/**
 * The status page as a person sees it, in Chromium: `sitesync watch` runs as a
 * child process over two reference servers holding drift, pending changes and
 * a conflict made through the API, a failing target and hostile live domains
 * (test/helpers/status-page-fleet.ts), with the page closed by a token. The
 * tests log in through the form, read the counts, a drifted site's field
 * difference and the failing check's message, use the filters and links, see
 * the hostile domains escaped, and check each page for console errors,
 * failed requests and serious accessibility violations (axe-core), with
 * scripting on and off, light and dark, desktop and phone. Screenshots go to
 * artifacts/browser/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageFleet, pageFleet } from '../helpers/status-page-fleet.js';
import {
  DESKTOP,
  launchChromium,
  PHONE,
  problemsOf,
  screenshot,
  seriousViolations,
  startWatchProcess,
  stopWatchProcesses,
  type WatchProcess,
} from './browser.js';

const TOKEN = 'browser-status-token-0123456789';

let browser: Browser;
let fleet: PageFleet;
let watch: WatchProcess;
/** Logged in (a POST to /login, as the form sends it): every test's pages share its cookie. */
let context: BrowserContext;

beforeAll(async () => {
  [browser, fleet] = await Promise.all([launchChromium(), pageFleet()]);
  watch = await startWatchProcess(
    fleet.repo.dir,
    // Checks are spread over the interval: the first cycle ends within 6 s, and nothing changes after.
    ['--interval', '9s', '--status-token-env', 'STATUS_TOKEN'],
    { ...fleet.env, STATUS_TOKEN: TOKEN },
  );
  context = await browser.newContext({ viewport: DESKTOP });
  const login = await context.request.post(`${watch.url}/login`, { form: { token: TOKEN }, maxRedirects: 0 });
  expect(login.status()).toBe(303);
});

afterAll(async () => {
  try {
    await context?.close();
    await browser?.close();
    if (watch !== undefined) expect(await watch.stop()).toBe(0);
  } finally {
    stopWatchProcesses();
    await fleet?.close();
  }
});

/** A new tab at `path` with its problems recorded from the start. */
async function open(path: string, where: BrowserContext = context): Promise<{ page: Page; problems: string[] }> {
  const page = await where.newPage();
  const problems = problemsOf(page);
  await page.goto(`${watch.url}${path}`);
  return { page, problems };
}

describe('the status page in Chromium', () => {
  it('asks for the token first, and the login form lets a person in', async () => {
    const fresh = await browser.newContext({ viewport: DESKTOP });
    const { page, problems } = await open('/targets/shop', fresh);
    await expect(page.getByRole('heading', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    expect(await page.content()).not.toContain('b.example');
    await page.getByLabel('Token').fill('not-the-token-at-all-0123');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('That is not the token.');
    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${watch.url}/targets/shop`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('shop');
    // The closed page and the wrong token are answered 401, which the browser logs: nothing else.
    expect(problems.filter((problem) => !/\b401\b/.test(problem))).toEqual([]);
    await fresh.close();
  });

  it('shows the fleet: what needs attention first, counts per class, the failing check’s message', async () => {
    const { page, problems } = await open('/');
    const rows = page.locator('table.fleet tbody tr');
    await expect(rows.locator('td.name a').allTextContents()).resolves.toEqual(['broken', 'shop', 'blog']);
    const shop = rows.filter({ has: page.getByRole('link', { name: 'shop', exact: true }) });
    const cells = await shop.locator('td.n').allTextContents();
    expect(cells).toEqual(['1', '1', '1', '1', '2']); // conflict, drift, pending, in sync, unmanaged
    const blog = rows.filter({ has: page.getByRole('link', { name: 'blog', exact: true }) });
    expect(await blog.locator('td.n').allTextContents()).toEqual(['0', '0', '0', '3', '0']);
    const broken = rows.filter({ has: page.getByRole('link', { name: 'broken', exact: true }) });
    expect(await broken.locator('td[data-label="Last error"]').textContent()).toMatch(/401/);
    expect(await page.locator('.totals').first().textContent()).toMatch(/1\s*Failing.*1\s*Conflict/s);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(DESKTOP.width);
    await screenshot(page, 'fleet-desktop');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters by standing and by name, and its links lead to a target, a class and a site', async () => {
    const { page, problems } = await open('/');
    await page.getByLabel('Show').selectOption('failing');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/class=failing/);
    await expect(page.locator('table.fleet td.name a').allTextContents()).resolves.toEqual(['broken']);
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByLabel('Target or service contains').fill('BLO');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/q=BLO/);
    await expect(page.locator('table.fleet td.name a').allTextContents()).resolves.toEqual(['blog']);

    await page.getByRole('link', { name: 'Clear' }).click();
    await page.locator('td[data-label="drift"] a').click(); // shop's drift count
    await page.waitForURL(`${watch.url}/targets/shop#drift`);
    const drift = page.locator('section#drift');
    await expect(drift.locator('h2').textContent()).resolves.toBe('Drift: 1');
    await drift.getByRole('link', { name: 'b.example' }).click();
    await page.waitForURL(/#site-b\.example$/);
    await page.getByRole('link', { name: 'Fleet' }).click();
    await page.waitForURL(`${watch.url}/`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows a target’s differences in plan’s words, and hostile domains escaped, never as another domain', async () => {
    const { page, problems } = await open('/targets/shop');
    const site = page.locator('#site-b\\.example pre');
    await expect(site.innerText()).resolves.toBe(
      '~ b.example (id 2) will be updated [drift]\n    privacy: public → private [drift]',
    );
    const conflict = await page.locator('section#conflict pre').innerText();
    expect(conflict).toContain('exclude_params: [conflict]');
    expect(conflict).toContain('- ref');
    expect(conflict).toContain('+ utm_source');
    expect(conflict).toContain('at the baseline, exclude_params: []');
    await expect(page.locator('section#pending pre').innerText()).resolves.toContain(
      '+ c.example will be created [pending]',
    );

    const unmanaged = await page.locator('section#unmanaged').innerText();
    expect(unmanaged).toContain('\\u202Eelpmaxe.live');
    expect(unmanaged).toContain('<img src=x>.example');
    expect(await page.locator('body').innerText()).not.toContain('evil.example');
    expect(await page.locator('main img').count()).toBe(0);

    await expect(page.getByRole('img', { name: /Drift count over the last 24 hours/ }).count()).resolves.toBe(1);
    await screenshot(page, 'target-desktop');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the failing target’s error whole on its page', async () => {
    const { page, problems } = await open('/targets/broken');
    const alert = page.getByRole('alert');
    await expect(alert.innerText()).resolves.toMatch(/^The last check failed: .*401/s);
    expect(await page.locator('dl.facts').innerText()).toMatch(/Alerts firing\s+check failing/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('works with scripting off: the login form, the filters, the links', async () => {
    const noScript = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    try {
      const { page, problems } = await open('/', noScript);
      await page.getByLabel('Token').fill(TOKEN);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${watch.url}/`);
      await page.getByLabel('Show').selectOption('in_sync');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/class=in_sync/);
      await expect(page.locator('table.fleet td.name a').allTextContents()).resolves.toEqual(['blog']);
      await page.getByRole('link', { name: 'blog', exact: true }).click();
      await expect(page.getByText('Every site is in sync.').isVisible()).resolves.toBe(true);
      await page.getByRole('link', { name: 'Auto-refresh (60 s)' }).click();
      await page.waitForURL(/refresh=60/);
      await expect(page.locator('meta[http-equiv="refresh"]').getAttribute('content')).resolves.toBe('60');
      expect(problems.filter((problem) => !/\b401\b/.test(problem))).toEqual([]);
    } finally {
      await noScript.close();
    }
  });

  it('is readable on a phone and in dark mode, with no serious accessibility violation', async () => {
    const cookies = await context.cookies();
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      await phone.addCookies(cookies);
      for (const path of ['/', '/targets/shop']) {
        const { page, problems } = await open(path, phone);
        const name = path === '/' ? 'fleet' : 'target';
        // Nothing wider than the screen: no sideways scrolling of the page itself.
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
        if (path === '/') {
          // A row as label: value lines, without the empty ones (blog has no error and no alert).
          const blog = page.locator('table.fleet tbody tr').filter({ has: page.getByRole('link', { name: 'blog' }) });
          await expect(blog.locator('td[data-label="Last error"]').isVisible()).resolves.toBe(false);
          await expect(blog.locator('td[data-label="Last success"]').isVisible()).resolves.toBe(true);
        }
        await screenshot(page, `${name}-phone`);
        await page.emulateMedia({ colorScheme: 'dark' });
        await screenshot(page, `${name}-phone-dark`);
        expect(await seriousViolations(page), `${path} dark`).toEqual([]);
        expect(problems).toEqual([]);
        await page.close();
      }
    } finally {
      await phone.close();
    }
  });
});
