/**
 * The page's HTML primitives, PURE: the one escape every text goes through
 * (domains, target names, messages: hostile input, all of it), the shell
 * every page shares, and times with their age. Escaping is the one every
 * other output uses (model/text.ts `printable`: control and invisible format
 * characters such as bidi overrides and zero-width spaces shown as `\u202E`),
 * then HTML's (render/markdown.ts `escapeHtml`). Attributes are always
 * double-quoted. Links are relative, so the page works behind a proxy's prefix.
 */
import { printable } from '../../model/text.js';
import { escapeHtml } from '../../render/markdown.js';

/** Any text as HTML text or a double-quoted attribute value. */
export function text(value: string | number): string {
  return escapeHtml(printable(String(value)));
}

/** A word in a coloured box (`check_failing` reads `check failing`): an alert or a heal's result. */
export function badge(kind: string): string {
  return `<span class="badge k-${kind}">${kind.replace('_', ' ')}</span>`;
}

/** A path segment or query value in a link (then escaped for the attribute). */
export function urlPart(value: string): string {
  return encodeURIComponent(value);
}

/** An element id (and URL fragment) for a domain: stable, readable for plain domains, never an invisible character. */
export function anchorOf(domain: string): string {
  const safe = [...domain]
    .map((char) => (/^[a-z0-9.-]$/.test(char) ? char : `_${(char.codePointAt(0) ?? 0).toString(16)}_`))
    .join('');
  return `site-${safe}`;
}

export interface Shell {
  title: string;
  /** From the page to the root: '' at `/`, '../' under /targets/. */
  root: string;
  /** Seconds between automatic reloads (a meta refresh), when asked for. */
  refresh?: number | undefined;
  /** The links to this page with and without the automatic reload. */
  refreshLinks: { now: string; auto: string; autoOn: boolean };
  body: string;
  /** Shown in the footer: when the page was made. */
  now: number;
}

export function page(shell: Shell): string {
  const { root } = shell;
  const refresh = shell.refresh === undefined ? '' : `\n<meta http-equiv="refresh" content="${shell.refresh}">`;
  const auto = shell.refreshLinks.autoOn ? 'Stop auto-refresh' : 'Auto-refresh (60 s)';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">${refresh}
<title>${text(shell.title)}</title>
<link rel="stylesheet" href="${root}page.css">
<link rel="icon" href="${root}favicon.svg" type="image/svg+xml">
</head>
<body>
<header>
<a class="brand" href="${root}">sitesync watch</a>
<a href="${shell.refreshLinks.now}">Refresh</a>
<a href="${shell.refreshLinks.auto}">${auto}</a>
</header>
<main>
${shell.body}
</main>
<footer>Made at ${timeText(shell.now)}. The same data as JSON: <a href="${root}status">/status</a>. Metrics: <a href="${root}metrics">/metrics</a>.</footer>
</body>
</html>
`;
}

/** `2026-07-06 08:05:03 UTC`. */
export function timeText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `3 min ago`, `2 h 5 min ago`, `4 d ago`: how old a time is. */
export function ageText(ms: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min ago`;
  return `${Math.floor(hours / 24)} d ago`;
}

/** A time as HTML, with its age. */
export function when(iso: string, now: number): string {
  const ms = Date.parse(iso);
  return `<time datetime="${text(iso)}">${timeText(ms)}</time> <span class="muted">(${ageText(ms, now)})</span>`;
}
