/**
 * One target's page, PURE over its `/status` entry: how its last check went
 * (and its error), the sites of each class with their bar, self-heal, the
 * drift of the last 24 hours, the sites not in sync with their differences,
 * and the last heals and alerts.
 */
import { SITE_CLASSES } from '../port.js';
import type { TargetStatus } from '../status.js';
import { classBar, driftChart } from './charts.js';
import { CLASS_NAMES, healState } from './fleet-view.js';
import { badge, text, when } from './html.js';
import { siteSections } from './site-view.js';

export function targetBody(target: TargetStatus, now: number): string {
  return [
    `<nav aria-label="Breadcrumb"><a href="../">Fleet</a> › <span>${text(target.target)}</span></nav>`,
    `<h1>${text(target.target)}</h1>`,
    `<p class="service">${text(target.service)}</p>`,
    problems(target),
    facts(target, now),
    counts(target),
    '<h2>Drift, last 24 hours</h2>',
    driftChart(target.drift24h),
    '<p class="muted">Each field reads <code>live → configuration</code>, as in <code>sitesync plan</code>.</p>',
    siteSections(target),
    heals(target, now),
    alerts(target, now),
  ].join('\n');
}

function problems(target: TargetStatus): string {
  const out: string[] = [];
  if (target.lastCheck?.result === 'error')
    out.push(
      `<div class="callout" role="alert"><strong>The last check failed:</strong> <span class="error">${text(target.lastCheck.error ?? '')}</span></div>`,
    );
  if (!target.config.ok)
    out.push(
      `<div class="callout" role="alert"><strong>Its configuration does not validate</strong> (checked against its last good state meanwhile): <span class="error">${text(target.config.error)}</span></div>`,
    );
  return out.join('\n');
}

function facts(target: TargetStatus, now: number): string {
  const check = target.lastCheck;
  const rows: [string, string][] = [
    [
      'Last check',
      check === undefined
        ? 'not yet'
        : `${when(check.at, now)}, ${check.seconds.toFixed(1)} s, ${check.result === 'success' ? 'success' : '<span class="error">failed</span>'}`,
    ],
    ['Last success', target.lastSuccessAt === undefined ? 'never' : when(target.lastSuccessAt, now)],
    ['Alerts firing', target.alerts.length === 0 ? 'none' : target.alerts.map(badge).join('')],
    ['Self-heal', healState(target)],
  ];
  return `<dl class="facts">${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

function counts(target: TargetStatus): string {
  const known = target.counts;
  const items = SITE_CLASSES.map((each) => {
    const count = known?.[each];
    const label = `<span class="k-${each}">${CLASS_NAMES[each]}</span>`;
    const inside = `<strong>${count ?? '–'}</strong> ${label}`;
    const linked = each !== 'in_sync' && count !== undefined && count > 0;
    return `<li>${linked ? `<a href="#${each}">${inside}</a>` : `<span class="box">${inside}</span>`}</li>`;
  });
  const asOf = known === undefined ? '' : ' <span class="muted">(as of the last successful check)</span>';
  return `<h2>Sites${asOf}</h2>\n<ul class="totals counts">${items.join('')}</ul>\n${classBar(known)}`;
}

function heals(target: TargetStatus, now: number): string {
  if (target.selfHeal.mode === 'off' && target.recentHeals.length === 0) return '';
  const rows = target.recentHeals.map(
    (heal) =>
      `<tr><td>${when(heal.at, now)}</td><td>${heal.action} <span class="domain">${text(heal.domain)}</span></td><td>${badge(heal.result)}</td><td>${text(heal.reason ?? '')}</td></tr>`,
  );
  return section('Last heals', ['Time', 'Change', 'Result', 'Reason'], rows, 'No heal yet.');
}

function alerts(target: TargetStatus, now: number): string {
  const rows = target.recentAlerts.map(
    (alert) =>
      `<tr><td>${when(alert.at, now)}</td><td>${badge(alert.alert)}</td><td>${alert.status}${alert.reminder ? ' (reminder)' : ''}</td><td class="n">${alert.sites}</td><td>${text(alert.reason ?? '')}</td></tr>`,
  );
  return section('Last alerts', ['Time', 'Alert', 'Status', 'Sites', 'Reason'], rows, 'No alert yet.');
}

function section(title: string, columns: readonly string[], rows: readonly string[], empty: string): string {
  if (rows.length === 0) return `<h2>${title}</h2>\n<p class="muted">${empty}</p>`;
  const head = columns.map((column) => `<th scope="col"${column === 'Sites' ? ' class="n"' : ''}>${column}</th>`);
  return `<h2>${title}</h2>\n<div class="scroll"><table><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}
