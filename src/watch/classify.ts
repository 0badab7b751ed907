/**
 * A plan seen as watch reports it, PURE: every site of a target in one class.
 * A change keeps its baseline class (pending, drift, conflict); without a
 * baseline nothing tells a configuration change from a live one, so every
 * change counts as drift (the live side differs from the configuration).
 * Configured sites without a change are in sync (counted, not kept by name);
 * live sites the configuration does not list are unmanaged (drift instead
 * with `unlisted_is_drift`).
 */
import type { Plan } from '../model/plan.js';
import { type CheckResult, type NamedClass, noSites, type SiteClass, type WatchedChange } from './port.js';

export function classify(
  plan: Plan,
  configured: readonly string[],
  live: readonly string[],
  unsafe: boolean,
): CheckResult {
  const sites = noSites();
  const counts: Record<SiteClass, number> = { in_sync: 0, pending: 0, drift: 0, conflict: 0, unmanaged: 0 };
  const changes: WatchedChange[] = plan.changes.map((change) => ({
    domain: change.domain,
    action: change.action,
    class: change.class ?? 'drift',
  }));
  const placed = new Set<string>();
  const place = (domain: string, into: SiteClass) => {
    if (placed.has(domain)) return;
    placed.add(domain);
    counts[into]++;
    if (into !== 'in_sync') sites[into].push(domain);
  };
  for (const change of changes) place(change.domain, change.class);
  for (const note of plan.notes)
    if (note.kind === 'unlisted_drift') for (const domain of note.domains) place(domain, 'drift');
  for (const domain of configured) place(domain, 'in_sync');
  for (const domain of live) place(domain, 'unmanaged'); // configured ones are placed already
  for (const list of Object.values(sites) as string[][]) list.sort();
  return { counts, sites: sites as Record<NamedClass, string[]>, changes, unsafe };
}
