/**
 * The status page's one stylesheet, served as `/page.css` (the
 * Content-Security-Policy allows styles from the page's own origin only, so
 * nothing is inline) and the favicon, served as `/favicon.svg` (without one
 * a browser asks for /favicon.ico and gets a 404). Light and dark follow
 * `prefers-color-scheme`; below 40rem the tables become one block per row.
 * System fonts only: nothing is fetched from elsewhere.
 */

export const STYLESHEET = `:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --panel: #f6f8fa; --link: #0550ae;
  --in_sync: #1a7f37; --pending: #0969da; --drift: #9a6700; --conflict: #cf222e; --unmanaged: #6e7781;
  --failing: #cf222e; --none: #eaeef2; --added: #1a7f37; --removed: #cf222e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23; --link: #58a6ff;
    --in_sync: #3fb950; --pending: #58a6ff; --drift: #d29922; --conflict: #f85149; --unmanaged: #9198a1;
    --failing: #f85149; --none: #262c36; --added: #3fb950; --removed: #f85149;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
a { color: var(--link); }
header, main, footer { padding: 0.6rem 1rem; max-width: 90rem; margin: 0 auto; }
header { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; align-items: baseline; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 600; margin-right: auto; }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); }
h1 { font-size: 1.4rem; margin: 0.6rem 0 0.2rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 0.4rem; }
h3 { font-size: 1rem; margin: 0.8rem 0 0.2rem; overflow-wrap: anywhere; }
.muted, .service { color: var(--muted); }
.service { font-size: 0.85rem; overflow-wrap: anywhere; }
code, pre, .domain { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--panel); border: 1px solid var(--line); padding: 0.5rem; overflow-x: auto; margin: 0.3rem 0; }
.totals { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.6rem 0; padding: 0; list-style: none; }
.totals li > a, .totals li > .box { display: block; padding: 0.4rem 0.7rem; border: 1px solid var(--line); border-radius: 6px;
  text-decoration: none; color: var(--fg); background: var(--panel); }
.totals strong { display: block; font-size: 1.2rem; }
.filters { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; margin: 0.6rem 0; }
.filters label { display: flex; flex-direction: column; font-size: 0.85rem; }
input, select, button { font: inherit; padding: 0.3rem 0.5rem; color: var(--fg); background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; }
button { background: var(--panel); cursor: pointer; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.n.zero { color: var(--muted); }
.error { color: var(--failing); overflow-wrap: anywhere; }
.callout { border: 1px solid var(--failing); border-left-width: 4px; padding: 0.5rem 0.7rem; margin: 0.6rem 0; }
.badge { display: inline-block; padding: 0 0.4rem; border: 1px solid currentColor; border-radius: 9px;
  font-size: 0.8rem; margin: 0 0.2rem 0.2rem 0; white-space: nowrap; }
.k-conflict, .k-check_failing, .k-heal_stopped, .k-failed { color: var(--conflict); }
.k-drift { color: var(--drift); } .k-pending { color: var(--pending); } .k-applied, .k-in_sync { color: var(--in_sync); }
svg.bar { display: block; width: 100%; min-width: 6rem; height: 0.7rem; border-radius: 3px; }
svg.chart { display: block; width: 100%; max-width: 48rem; height: 6rem; }
figure { margin: 0.4rem 0; }
.pages { display: flex; gap: 1rem; justify-content: center; margin: 0.8rem 0; }
td.name { min-width: 12rem; }
table.fleet td[data-label="Sites"] { width: 7rem; }
table.fleet td[data-label="Last error"] { min-width: 12rem; }
time { white-space: nowrap; }
.scroll { overflow-x: auto; }
.c-in_sync { fill: var(--in_sync); } .c-pending { fill: var(--pending); } .c-drift { fill: var(--drift); }
.c-conflict { fill: var(--conflict); } .c-unmanaged { fill: var(--unmanaged); } .c-none { fill: var(--none); }
.chart text { fill: var(--muted); font-size: 10px; }
.l-added { color: var(--added); } .l-removed { color: var(--removed); } .l-ignored, .l-kept { color: var(--muted); }
.site { border-top: 1px solid var(--line); padding-top: 0.2rem; }
.site:target { background: var(--panel); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0.6rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  header, main, footer { padding: 0.5rem; }
  table.fleet thead { display: none; }
  table.fleet tr { display: block; border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
  table.fleet td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: 0.15rem 0; text-align: right; }
  table.fleet td::before { content: attr(data-label); color: var(--muted); text-align: left; flex: none; }
  table.fleet td > .v { flex: 1; min-width: 0; }
  table.fleet td:has(> .v:empty) { display: none; }
  table.fleet td[data-label] { width: auto; min-width: 0; }
  time { white-space: normal; }
  table.fleet td.name { display: block; text-align: left; }
  table.fleet td.name::before { content: none; }
  dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: 0.4rem; }
}
`;

export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0969da"/><path d="M4 8.5l2.5 2.5L12 5" stroke="#fff" stroke-width="2" fill="none"/></svg>
`;
