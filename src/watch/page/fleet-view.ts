/**
 * The fleet at a glance, PURE over `/status`: the totals on top, a filter
 * (by what needs attention and by name; a plain GET form, so it works with
 * scripting off) and one row per target, sorted by what needs attention
 * first: failing checks, conflicts, drift, pending, not checked yet, in sync.
 */
import { countOf } from '../../model/text.js';
import { SITE_CLASSES, type SiteClass } from '../port.js';
import type { TargetStatus } from '../status.js';
import type { WatchStatus } from '../watcher.js';
import { classBar } from './charts.js';
import { badge, text, urlPart, when } from './html.js';

export const CLASS_NAMES: Readonly<Record<SiteClass, string>> = {
  in_sync: 'in sync',
  pending: 'pending',
  drift: 'drift',
  conflict: 'conflict',
  unmanaged: 'unmanaged',
};

/** What a target's row is sorted and filtered by: the most urgent thing about it. */
export const STANDINGS = ['failing', 'conflict', 'drift', 'pending', 'unchecked', 'in_sync'] as const;
export type Standing = (typeof STANDINGS)[number];

const STANDING_NAMES: Readonly<Record<Standing, string>> = {
  failing: 'Failing',
  conflict: 'Conflict',
  drift: 'Drift',
  pending: 'Pending',
  unchecked: 'Not checked yet',
  in_sync: 'In sync',
};

/** The fleet's count columns, in order. */
const COLUMNS = ['conflict', 'drift', 'pending', 'in_sync', 'unmanaged'] as const satisfies readonly SiteClass[];

/** Rows a page shows: the page stays quick with thousands of targets (the totals count them all). */
export const PAGE_SIZE = 100;

export interface FleetQuery {
  /** 1-based: rows (page - 1) × PAGE_SIZE onwards. */
  page?: number | undefined;
  /** Only targets standing so. */
  standing?: Standing | undefined;
  /** Only targets whose name or service contains this (any case). */
  name?: string | undefined;
}

export function standingOf(target: TargetStatus): Standing {
  if (target.lastCheck?.result === 'error' || !target.config.ok) return 'failing';
  const counts = target.counts;
  if (counts === undefined) return 'unchecked';
  if (counts.conflict > 0) return 'conflict';
  if (counts.drift > 0) return 'drift';
  if (counts.pending > 0) return 'pending';
  return 'in_sync';
}

/** Most urgent first; within a standing, the most sites of that class first, then by name. */
export function byAttention(targets: readonly TargetStatus[]): TargetStatus[] {
  const keyed = targets.map((target) => {
    const standing = standingOf(target);
    const weight = standing in (target.counts ?? {}) ? (target.counts?.[standing as SiteClass] ?? 0) : 0;
    return { target, rank: STANDINGS.indexOf(standing), weight };
  });
  keyed.sort(
    (a, b) =>
      a.rank - b.rank ||
      b.weight - a.weight ||
      (a.target.target < b.target.target ? -1 : a.target.target > b.target.target ? 1 : 0),
  );
  return keyed.map((each) => each.target);
}

export function fleetBody(status: WatchStatus, query: FleetQuery, now: number): string {
  const sorted = byAttention(status.targets);
  const needle = query.name?.toLowerCase() ?? '';
  const shown = sorted.filter(
    (target) =>
      (query.standing === undefined || standingOf(target) === query.standing) &&
      (needle === '' || target.target.toLowerCase().includes(needle) || target.service.toLowerCase().includes(needle)),
  );
  const parts = [
    '<h1>Fleet</h1>',
    `<p class="muted">${countOf(status.targets.length, 'target')}, ${countOf(status.cycles, 'cycle')} checked${status.ready ? '' : '; the first cycle is still running'}.</p>`,
  ];
  const { coordination } = status;
  if (coordination.replicas > 1)
    parts.push(
      `<p>This is replica <code>${text(coordination.replica)}</code>, one of ${coordination.replicas}: it shows the ${countOf(coordination.owned, 'target')} it checks; each replica's page shows its own.</p>`,
    );
  if (!status.config.ok)
    parts.push(
      `<div class="callout" role="alert"><strong>The configuration does not validate</strong> (the last good one is watched meanwhile): <span class="error">${text(status.config.error ?? '')}</span></div>`,
    );
  const page = Math.min(query.page ?? 1, Math.max(1, Math.ceil(shown.length / PAGE_SIZE)));
  const rows = shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  parts.push(
    totals(status.targets, query),
    filters(query),
    table(rows, now, caption(page, rows.length, shown.length, sorted.length)),
  );
  if (shown.length > PAGE_SIZE) parts.push(pages(page, shown.length, query));
  return parts.join('\n');
}

function caption(page: number, rows: number, matching: number, total: number): string {
  const first = (page - 1) * PAGE_SIZE + 1;
  const range = matching > rows ? `${first}–${first + rows - 1} of ` : '';
  const of = matching === total ? countOf(total, 'target') : `${matching} matching of ${countOf(total, 'target')}`;
  return `${range}${of}, what needs attention first`;
}

/** Previous and next pages, keeping the filter. */
function pages(page: number, matching: number, query: FleetQuery): string {
  const last = Math.ceil(matching / PAGE_SIZE);
  const link = (to: number, label: string, rel: string) => {
    const params = new URLSearchParams();
    if (query.standing !== undefined) params.set('class', query.standing);
    if (query.name !== undefined) params.set('q', query.name);
    params.set('page', String(to));
    return `<a rel="${rel}" href="?${text(params.toString())}">${label}</a>`;
  };
  const previous = page > 1 ? link(page - 1, '← Previous', 'prev') : '';
  const next = page < last ? link(page + 1, 'Next →', 'next') : '';
  return `<nav class="pages" aria-label="Pages">${previous} <span>Page ${page} of ${last}</span> ${next}</nav>`;
}

/** The count of targets in each standing (each a link to that filter), the sites of each class, the alerts firing. */
function totals(targets: readonly TargetStatus[], query: FleetQuery): string {
  const standings = new Map<Standing, number>(STANDINGS.map((each) => [each, 0]));
  const sites = Object.fromEntries(SITE_CLASSES.map((each) => [each, 0])) as Record<SiteClass, number>;
  let firing = 0;
  for (const target of targets) {
    const standing = standingOf(target);
    standings.set(standing, (standings.get(standing) ?? 0) + 1);
    for (const each of SITE_CLASSES) sites[each] += target.counts?.[each] ?? 0;
    firing += target.alerts.length;
  }
  const name = query.name === undefined ? '' : `&amp;q=${text(urlPart(query.name))}`;
  const items = STANDINGS.map(
    (each) =>
      `<li><a href="?class=${each}${name}"><strong>${standings.get(each)}</strong> <span class="k-${each}">${STANDING_NAMES[each]}</span></a></li>`,
  );
  const siteLine = SITE_CLASSES.map(
    (each) => `<strong>${sites[each]}</strong> <span class="k-${each}">${CLASS_NAMES[each]}</span>`,
  ).join(' · ');
  return `<h2 id="totals">Targets by what needs attention</h2>
<ul class="totals">${items.join('')}</ul>
<p>Sites: ${siteLine}. Alerts firing: <strong>${firing}</strong>.</p>`;
}

function filters(query: FleetQuery): string {
  const options = [
    `<option value=""${query.standing === undefined ? ' selected' : ''}>All</option>`,
    ...STANDINGS.map(
      (each) => `<option value="${each}"${query.standing === each ? ' selected' : ''}>${STANDING_NAMES[each]}</option>`,
    ),
  ];
  return `<form class="filters" method="get" action="" role="search">
<label for="f-class">Show<select id="f-class" name="class">${options.join('')}</select></label>
<label for="f-name">Target or service contains<input id="f-name" name="q" type="search" value="${text(query.name ?? '')}"></label>
<button type="submit">Filter</button>
<a href="?">Clear</a>
</form>`;
}

function table(targets: readonly TargetStatus[], now: number, caption: string): string {
  const classHeads = COLUMNS.map((each) => `<th scope="col" class="n">${CLASS_NAMES[each]}</th>`).join('');
  const head = `<thead><tr><th scope="col">Target</th>${classHeads}<th scope="col">Sites</th><th scope="col">Last success</th><th scope="col">Last error</th><th scope="col">Alerts</th><th scope="col">Self-heal</th></tr></thead>`;
  if (targets.length === 0) return `<p>No target matches.</p>`;
  return `<table class="fleet"><caption class="muted">${caption}</caption>${head}<tbody>
${targets.map((target) => row(target, now)).join('\n')}
</tbody></table>`;
}

function row(target: TargetStatus, now: number): string {
  const counts = target.counts;
  const href = `targets/${text(urlPart(target.target))}`;
  const number = (each: SiteClass) => {
    const count = counts?.[each];
    const cell =
      count === undefined ? '–' : count > 0 && each !== 'in_sync' ? `<a href="${href}#${each}">${count}</a>` : count;
    return `<td class="n${count === 0 ? ' zero' : ''}" data-label="${CLASS_NAMES[each]}">${cell}</td>`;
  };
  const error =
    target.lastCheck?.result === 'error'
      ? `<span class="error">${text(shorten(target.lastCheck.error ?? ''))}</span>`
      : !target.config.ok
        ? `<span class="error">configuration: ${text(shorten(target.config.error))}</span>`
        : '';
  const alerts = target.alerts.map(badge).join('');
  return `<tr><td class="name"><a href="${href}">${text(target.target)}</a><div class="service">${text(target.service)}</div></td>${COLUMNS.map(number).join('')}${cell('Sites', classBar(counts))}${cell('Last success', target.lastSuccessAt === undefined ? 'never' : when(target.lastSuccessAt, now))}${cell('Last error', error)}${cell('Alerts', alerts)}${cell('Self-heal', healState(target))}</tr>`;
}

/** A cell whose content stays one block when a phone shows the row as label: value lines. */
function cell(label: string, content: string): string {
  return `<td data-label="${label}"><span class="v">${content}</span></td>`;
}

/** A long error in a row: its start (the target's page shows it whole). */
function shorten(message: string): string {
  const chars = [...message];
  return chars.length > 160 ? `${chars.slice(0, 159).join('')}…` : message;
}

/** off, on (mode), stopped after failures, or outside its window. */
export function healState(target: TargetStatus): string {
  const heal = target.selfHeal;
  if (heal.mode === 'off' || !('stopped' in heal)) return '<span class="muted">off</span>';
  if (heal.stopped)
    return `<span class="error">stopped after ${heal.consecutiveFailures} failures</span> <span class="muted">(${heal.mode})</span>`;
  if (!heal.insideWindow) return `outside its window <span class="muted">(${heal.mode})</span>`;
  return `on <span class="muted">(${heal.mode})</span>`;
}
