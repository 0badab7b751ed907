/**
 * A target's sites not in sync, grouped by class, PURE: each site with its
 * difference in the words of `sitesync plan` (render/projection.ts: the
 * headline and one line per field, `live → configuration`) and, for pending
 * and conflict, what the baseline said (render/field-text.ts). Each site has
 * a stable anchor (`#site-…`), each class a section (`#drift`…).
 */
import { fieldValueText } from '../../render/field-text.js';
import { projectChange } from '../../render/projection.js';
import type { SiteDifference } from '../differences.js';
import type { NamedClass } from '../port.js';
import type { TargetStatus } from '../status.js';
import { anchorOf, text } from './html.js';

/** Sites of one class named on the page (beyond: a count); the names of all are in /status. */
const NAMED = 500;

const HEADINGS: Readonly<Record<NamedClass, { title: string; meaning: string }>> = {
  conflict: {
    title: 'Conflict',
    meaning: 'both the configuration and the live website changed since the baseline, differently',
  },
  drift: {
    title: 'Drift',
    meaning: 'the live website moved; repair it with apply, or adopt the change in the configuration',
  },
  pending: { title: 'Pending', meaning: 'configuration changes waiting for apply' },
  unmanaged: {
    title: 'Unmanaged',
    meaning: 'live, not in the configuration, and no change planned (outside manage, or kept with prune off)',
  },
};

export const SECTION_ORDER: readonly NamedClass[] = ['conflict', 'drift', 'pending', 'unmanaged'];

export function siteSections(target: TargetStatus): string {
  if (target.sites === undefined) return '<p class="muted">No successful check yet: nothing to compare.</p>';
  const differences = new Map((target.differences ?? []).map((each) => [each.domain, each]));
  const sections = SECTION_ORDER.flatMap((each) => {
    const domains = target.sites?.[each] ?? [];
    return domains.length === 0 ? [] : [classSection(each, domains, differences, target.target)];
  });
  if (sections.length === 0) return '<p>Every site is in sync.</p>';
  return sections.join('\n');
}

function classSection(
  siteClass: NamedClass,
  domains: readonly string[],
  differences: ReadonlyMap<string, SiteDifference>,
  target: string,
): string {
  const heading = HEADINGS[siteClass];
  const shown = domains.slice(0, NAMED);
  const withDifference = shown.filter((domain) => differences.has(domain));
  const without = shown.filter((domain) => !differences.has(domain));
  const parts = [
    `<section id="${siteClass}" aria-labelledby="h-${siteClass}">`,
    `<h2 id="h-${siteClass}"><span class="k-${siteClass}">${heading.title}</span>: ${domains.length}</h2>`,
    `<p class="muted">${heading.meaning}.</p>`,
    ...withDifference.map((domain) => siteBlock(domain, differences.get(domain))),
  ];
  if (without.length > 0) {
    const why =
      siteClass === 'unmanaged'
        ? ''
        : `<p class="muted">Without a difference here (beyond the first of the class, or live but not in the configuration): <code>sitesync plan --target ${text(target)}</code> shows each.</p>`;
    parts.push(why, `<ul>${without.map((domain) => siteItem(domain)).join('')}</ul>`);
  }
  if (domains.length > shown.length)
    parts.push(`<p class="muted">and ${domains.length - shown.length} more (every name is in /status).</p>`);
  parts.push('</section>');
  return parts.join('\n');
}

function siteItem(domain: string): string {
  const id = anchorOf(domain);
  return `<li id="${id}"><a class="domain" href="#${id}">${text(domain)}</a></li>`;
}

function siteBlock(domain: string, difference: SiteDifference | undefined): string {
  const id = anchorOf(domain);
  const lines: string[] = [];
  if (difference !== undefined) {
    const view = projectChange(difference.change);
    lines.push(`<span class="headline">${text(view.headline)}</span>`);
    for (const line of view.fields) lines.push(`<span class="l-${line.kind}">${text(line.text)}</span>`);
    const baseline = difference.baseline;
    if (baseline !== undefined) {
      lines.push(
        `<span class="muted">    at the baseline: ${baseline.listed ? 'listed' : 'not in the configuration'}</span>`,
      );
      for (const [field, value] of Object.entries(baseline.fields))
        lines.push(
          `<span class="muted">    at the baseline, ${text(fieldValueText(field as keyof typeof baseline.fields, value))}</span>`,
        );
    }
  }
  return `<div class="site" id="${id}">
<h3><a class="domain" href="#${id}">${text(domain)}</a></h3>
<pre>${lines.join('\n')}</pre>
</div>`;
}
