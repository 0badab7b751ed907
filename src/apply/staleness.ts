/**
 * Is a plan still true? The one freshness check, for a saved plan and for a
 * plan a person took minutes to confirm alike: each touched site is read again
 * (listing or per-site reads, whichever is fewer requests) and sorted into:
 * unchanged since the plan (apply it), already in the planned state (an
 * earlier or concurrent apply of this plan got there: skip it), or moved (the
 * plan is stale: refuse, naming the site and how it moved). Only reads; the
 * decision to refuse is the command's.
 */
import type { WebsitesApi } from '../api/types.js';
import { ALREADY_APPLIED, type MovedSite, type SettingMove } from '../model/apply-result.js';
import type { Change } from '../model/plan.js';
import { FIELDS, type LiveWebsite, SETTING_NAMES, sameValue, type WebsiteSettings } from '../model/website.js';
import { fingerprintLive } from '../plan/fingerprint.js';
import type { SiteFingerprint } from '../plan/saved-plan.js';
import { readTargets } from './read-back.js';

export interface Freshness {
  /** Sites already in the planned state, by domain, with the reason to skip them. */
  alreadyApplied: Map<string, string>;
  moved: MovedSite[];
}

/**
 * `fingerprints` are what the planner saw, one per change (`fingerprintsOf`);
 * `liveCount` (sites in the account) chooses listing vs per-site reads.
 */
export async function checkFreshness(
  changes: readonly Change[],
  fingerprints: readonly SiteFingerprint[],
  api: WebsitesApi,
  options: { liveCount: number; signal?: AbortSignal | undefined },
): Promise<Freshness> {
  const targets = changes.map((change) => ({ domain: change.domain, id: change.id }));
  const live = await readTargets(api, targets, options.liveCount, options.signal);
  const alreadyApplied = new Map<string, string>();
  const moved: MovedSite[] = [];
  changes.forEach((change, index) => {
    const site = live.get(change.domain);
    const expected = fingerprints[index]?.fingerprint ?? null;
    if (site === undefined ? expected === null : fingerprintLive(site) === expected) return;
    if (inPlannedState(change, site)) alreadyApplied.set(change.domain, ALREADY_APPLIED);
    else moved.push(howMoved(change, site));
  });
  return { alreadyApplied, moved };
}

/** Whether the site already looks exactly as the plan would leave it. */
function inPlannedState(change: Change, site: LiveWebsite | undefined): boolean {
  if (change.action === 'delete') return site === undefined;
  if (site === undefined) return false;
  const expected: Partial<WebsiteSettings> =
    change.action === 'create' ? change.after : { ...change.before, ...planned(change) };
  return SETTING_NAMES.every((name) => {
    const actual = site.settings[name] === undefined ? undefined : FIELDS[name].canonical(site.settings[name]);
    return actual === undefined || expected[name] === undefined || sameValue(actual, expected[name]);
  });
}

/** The settings an update sets. */
function planned(change: Extract<Change, { action: 'update' }>): Partial<WebsiteSettings> {
  const out: Partial<WebsiteSettings> = {};
  for (const field of change.fields) {
    if (field.field !== 'password') Object.assign(out, { [field.field]: change.after[field.field] });
  }
  return out;
}

function howMoved(change: Change, site: LiveWebsite | undefined): MovedSite {
  if (site === undefined) return { domain: change.domain, kind: 'gone', moves: [] };
  if (change.action === 'create') {
    return { domain: change.domain, kind: 'appeared', id: site.id, moves: settingMoves(change.after, site) };
  }
  return { domain: change.domain, kind: 'changed', moves: settingMoves(change.before, site) };
}

/** Every readable setting that differs between the plan's values and the live site. */
function settingMoves(then: Partial<WebsiteSettings>, site: LiveWebsite): SettingMove[] {
  const moves: SettingMove[] = [];
  for (const name of SETTING_NAMES) {
    const was = then[name];
    const raw = site.settings[name];
    const now = raw === undefined ? undefined : FIELDS[name].canonical(raw);
    if (was === undefined || now === undefined || sameValue(was, now)) continue;
    moves.push({ field: name, planned: was, now });
  }
  return moves;
}
