/**
 * The status page's routes on the metrics listener: `/` (the fleet),
 * `/targets/NAME` (one target; `#drift`, `#site-DOMAIN` inside), the
 * stylesheet and icon, and, with a token, `/login` and `/logout`. Each answer
 * is made from `watcher.status()`, the model `/status` serialises. Every HTML
 * answer carries a Content-Security-Policy with no script source at all
 * (the page has no script) and styles only from this origin.
 */
import type { Watcher } from '../watcher.js';
import type { Access } from './access.js';
import { type FleetQuery, fleetBody, STANDINGS, type Standing } from './fleet-view.js';
import { page, text } from './html.js';
import { FAVICON, STYLESHEET } from './style.js';
import { targetBody } from './target-view.js';

export interface PageRequest {
  method: string;
  /** The path, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  headers: { authorization?: string | undefined; cookie?: string | undefined };
  /** The body as text; rejects past `limit` bytes. */
  body(limit: number): Promise<string>;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const LOGIN_BODY_LIMIT = 4096;
/** Seconds between reloads with `?refresh=…`, and the bounds it may take. */
const AUTO_REFRESH = 60;

export function isPagePath(path: string): boolean {
  return ['/', '/page.css', '/favicon.svg', '/login', '/logout'].includes(path) || path.startsWith('/targets/');
}

export class PageRoutes {
  constructor(
    private readonly watcher: Pick<Watcher, 'status'>,
    private readonly access: Access,
    private readonly now: () => number,
  ) {}

  async reply(request: PageRequest): Promise<Reply> {
    const { path, method } = request;
    if (path === '/page.css') return asset('text/css; charset=utf-8', STYLESHEET);
    if (path === '/favicon.svg') return asset('image/svg+xml', FAVICON);
    if (path === '/login' || path === '/logout') {
      if (method !== 'POST') return plain(405, 'use the form: POST\n', { allow: 'POST' });
      return path === '/login' ? this.#login(request) : this.#logout();
    }
    if (method !== 'GET' && method !== 'HEAD') return plain(405, 'method not allowed\n', { allow: 'GET, HEAD' });
    const root = path.startsWith('/targets/') ? '../' : '';
    if (!this.access.allows(request.headers)) return this.#loginPage(root, path.slice(1), request.query, 401);
    const refresh = refreshOf(request.query);
    if (typeof refresh === 'string') return this.#error(400, root, refresh);
    if (path === '/') {
      const query = fleetQueryOf(request.query);
      if (typeof query === 'string') return this.#error(400, root, query);
      return this.#html(200, 'Fleet: sitesync watch', root, request.query, refresh, (now) =>
        fleetBody(this.watcher.status(), query, now),
      );
    }
    const name = decodeSegment(path.slice('/targets/'.length));
    const target = this.watcher.status().targets.find((each) => each.target === name);
    if (target === undefined)
      return this.#error(404, root, `no target named ${name ?? path.slice('/targets/'.length)}`);
    return this.#html(200, `${target.target}: sitesync watch`, root, request.query, refresh, (now) =>
      targetBody(target, now),
    );
  }

  #html(
    status: number,
    title: string,
    root: string,
    query: URLSearchParams,
    refresh: number | undefined,
    body: (now: number) => string,
  ): Reply {
    const now = this.now();
    const auto = new URLSearchParams(query);
    if (refresh === undefined) auto.set('refresh', String(AUTO_REFRESH));
    else auto.delete('refresh');
    const links = {
      now: `?${text(query.toString())}`,
      auto: `?${text(auto.toString())}`,
      autoOn: refresh !== undefined,
    };
    const html = page({ title, root, refresh, refreshLinks: links, body: body(now), now });
    return { status, headers: { ...HTML_HEADERS }, body: html };
  }

  #error(status: number, root: string, message: string): Reply {
    return this.#html(status, 'sitesync watch', root, new URLSearchParams(), undefined, () =>
      [
        `<h1>${status === 404 ? 'Not found' : 'Bad request'}</h1>`,
        `<p>${text(message)}.</p>`,
        `<p><a href="${root || './'}">The fleet</a></p>`,
      ].join('\n'),
    );
  }

  #loginPage(root: string, next: string, query: URLSearchParams, status: number, wrong = false): Reply {
    const target = query.size === 0 ? next : `${next}?${query.toString()}`;
    const reply = this.#html(status, 'Log in: sitesync watch', root, new URLSearchParams(), undefined, () =>
      [
        '<h1>Log in</h1>',
        wrong ? '<p class="error" role="alert">That is not the token.</p>' : '',
        '<p>This page shows the websites of the accounts watched: it needs the token of <code>--status-token-env</code>.</p>',
        `<form method="post" action="${root}login">`,
        `<input type="hidden" name="next" value="${text(target)}">`,
        '<p><label for="token">Token</label><br><input id="token" name="token" type="password" autocomplete="current-password" required></p>',
        '<p><button type="submit">Log in</button></p>',
        '</form>',
      ].join('\n'),
    );
    reply.headers['www-authenticate'] = 'Bearer realm="sitesync watch"';
    return reply;
  }

  async #login(request: PageRequest): Promise<Reply> {
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await request.body(LOGIN_BODY_LIMIT));
    } catch {
      return plain(413, `the login form is at most ${LOGIN_BODY_LIMIT} bytes\n`);
    }
    const next = safeNext(form.get('next') ?? '');
    const result = this.access.login(form.get('token') ?? '');
    if (result === 'throttled')
      return plain(429, 'too many wrong tokens: try again in a minute\n', { 'retry-after': '60' });
    if (result === 'wrong') return this.#loginPage('', next, new URLSearchParams(), 401, true);
    return { status: 303, headers: { location: `./${next}`, 'set-cookie': result.cookie }, body: '' };
  }

  #logout(): Reply {
    return { status: 303, headers: { location: './', 'set-cookie': this.access.logout() }, body: '' };
  }
}

function asset(type: string, body: string): Reply {
  // Cached for an hour: a refresh of the page (or its meta refresh) does not fetch them again.
  return {
    status: 200,
    headers: { 'content-type': type, 'x-content-type-options': 'nosniff', 'cache-control': 'max-age=3600' },
    body,
  };
}

function plain(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

function fleetQueryOf(query: URLSearchParams): FleetQuery | string {
  const standing = query.get('class') ?? '';
  if (standing !== '' && !(STANDINGS as readonly string[]).includes(standing))
    return `class ${JSON.stringify(standing)} is not one of ${STANDINGS.join(', ')}`;
  const name = query.get('q')?.trim() ?? '';
  const page = query.get('page') ?? '1';
  if (!/^[1-9]\d{0,5}$/.test(page)) return `page ${JSON.stringify(page)} is not a page number`;
  return {
    ...(page !== '1' && { page: Number(page) }),
    ...(standing !== '' && { standing: standing as Standing }),
    ...(name !== '' && { name }),
  };
}

function refreshOf(query: URLSearchParams): number | undefined | string {
  const value = query.get('refresh');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds < 5 || seconds > 3600)
    return `refresh ${JSON.stringify(value)} is not a number of seconds from 5 to 3600`;
  return seconds;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Where to go after logging in: a path below the page's root (printable ASCII, no backslash), or the root. */
function safeNext(next: string): string {
  return /^(?:targets\/[!-[\]-~]*)?(?:\?[!-[\]-~]*)?$/.test(next) && !next.includes('//') ? next : '';
}
