/**
 * Since when a drifted site differs (docs/plan-format.md, "Attribution"): the
 * `drift` lines `watch --journal` writes at the first check that saw each site
 * drift, read back by `plan --live-since FILE`. A later write of the site
 * (an apply's or a heal's `succeeded` line) ends that sighting.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LiveSince } from '../model/attribution.js';
import { SINGLE_TARGET } from '../model/desired-state.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';

export function liveSinceOf(plan: Plan, journal: string, cwd: string, target?: string): Map<string, LiveSince> {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, journal), 'utf8');
  } catch (error) {
    throw new SitesyncError('usage', `--live-since ${journal}: ${(error as Error).message}`);
  }
  const seen = new Map<string, string>();
  for (const line of text.split('\n')) {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof entry.domain !== 'string') continue;
    if (entry.target !== undefined && entry.target !== (target ?? SINGLE_TARGET)) continue;
    const domain = canonicalDomain(entry.domain);
    if (entry.event === 'succeeded') seen.delete(domain);
    else if (entry.event === 'drift' && typeof entry.seen === 'string' && !seen.has(domain))
      seen.set(domain, entry.seen);
  }
  const since = new Map<string, LiveSince>();
  for (const change of plan.changes) {
    const at = seen.get(change.domain);
    // Not pending: without a baseline a change has no class, and watch counted it as drift.
    if (at !== undefined && change.class !== 'pending') since.set(change.domain, { at, source: 'watch' });
  }
  return since;
}
