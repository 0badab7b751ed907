/**
 * The page's two pictures as inline SVG, PURE: a target's sites as one bar
 * split by class, and its drift count over the last 24 hours. Sizes are
 * attributes and colours classes of the served stylesheet: no inline style,
 * so the Content-Security-Policy needs no exception. Each picture repeats
 * numbers that are also written out as text next to it.
 */
import type { SiteClass } from '../port.js';
import type { TargetStatus } from '../status.js';
import { text } from './html.js';

/** The bar's order: what needs attention first. */
export const BAR_ORDER: readonly SiteClass[] = ['conflict', 'drift', 'pending', 'unmanaged', 'in_sync'];

/** A bar of 100 units split by class; grey when there are no sites (or no successful check yet). */
export function classBar(counts: Record<SiteClass, number> | undefined): string {
  const total = counts === undefined ? 0 : BAR_ORDER.reduce((sum, each) => sum + counts[each], 0);
  const open = '<svg class="bar" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true" focusable="false">';
  if (counts === undefined || total === 0) return `${open}<rect class="c-none" width="100" height="1"/></svg>`;
  let x = 0;
  const parts: string[] = [];
  for (const each of BAR_ORDER) {
    if (counts[each] === 0) continue;
    const width = (counts[each] / total) * 100;
    parts.push(`<rect class="c-${each}" x="${round(x)}" width="${round(width)}" height="1"/>`);
    x += width;
  }
  return `${open}${parts.join('')}</svg>`;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

const CHART_HEIGHT = 80;
const BAR_WIDTH = 10;

/** The drift count per quarter hour over the last day: one bar per quarter hour with a check, the largest count on top. */
export function driftChart(drift: TargetStatus['drift24h']): string {
  const { counts } = drift;
  const known = counts.filter((count): count is number => count !== null);
  const highest = Math.max(1, ...known);
  const width = counts.length * BAR_WIDTH;
  const bars = counts.flatMap((count, index) => {
    if (count === null) return [];
    const height = count === 0 ? 1 : Math.max(2, (count / highest) * (CHART_HEIGHT - 2));
    const kind = count === 0 ? 'c-in_sync' : 'c-drift';
    return [
      `<rect class="${kind}" x="${index * BAR_WIDTH + 1}" y="${round(CHART_HEIGHT - height)}" width="${BAR_WIDTH - 2}" height="${round(height)}"/>`,
    ];
  });
  const latest = known.length === 0 ? undefined : counts.findLast((count) => count !== null);
  const summary =
    known.length === 0
      ? 'no successful check in the last 24 hours'
      : `highest ${Math.max(...known)}, latest ${latest}, over ${known.length} quarter hours with a check`;
  return `<figure>
<svg class="chart" viewBox="0 0 ${width} ${CHART_HEIGHT}" preserveAspectRatio="none" role="img" aria-label="Drift count over the last 24 hours: ${text(summary)}">
<rect class="c-none" x="0" y="${CHART_HEIGHT - 1}" width="${width}" height="1"/>${bars.join('')}
</svg>
<figcaption class="muted">Sites in drift per quarter hour, 24 hours ago to now: ${text(summary)}.</figcaption>
</figure>`;
}
