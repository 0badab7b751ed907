/**
 * The planner: desired websites + live websites + policy → Plan. PURE and
 * synchronous: no I/O, clock, environment or randomness, so the same input
 * gives a byte-identical plan. Identity is the canonical domain. Changes are
 * ordered deletes → creates → updates, then by domain (a freed domain can be
 * re-used in the same run). Safety is checked separately (safety.ts) over the
 * finished plan and attached as data; apply enforces it.
 */
import { byDomain, type DuplicateDomain, indexLiveByDomain, isStorableDomain } from '../model/domain.js';
import type {
  Baseline,
  Change,
  CreateChange,
  FieldChange,
  IgnoredOnlySite,
  Note,
  Plan,
  PlanPolicy,
  PlanSummary,
} from '../model/plan.js';
import type { DesiredWebsite, LiveWebsite, SettingName } from '../model/website.js';
import { baselineSites, classifyPlan, withBaselineWrites } from './baseline.js';
import { canonicalSettings, compareSite, createFields, inSync, liveSettings, writeOnlySettings } from './compare.js';
import { type CoverageCounts, coverageOf } from './coverage.js';
import { fingerprintLive } from './fingerprint.js';
import { ExpiredRules } from './ignore-rules.js';
import { type Resend, writeOnlyResend } from './policy.js';
import { checkSafety, renamePairs } from './safety.js';
import { scopeOf } from './scope.js';

const ACTION_ORDER = { delete: 0, create: 1, update: 2 } as const;

/** What planning collects on its way: changes, and the domains and counts behind the notes and summary. */
interface Tally {
  changes: Change[];
  /** Unchanged sites whose only drift is in ignore_changes fields. */
  ignoredOnly: IgnoredOnlySite[];
  outOfScope: string[];
  kept: string[];
  /** Kept sites reported as drift (--unlisted-is-drift): not listed now, nor at the baseline. */
  unlistedDrift: string[];
  protected: string[];
  unverified: string[];
  ignored: string[];
  filtered: string[];
  /** Updates that leave privacy password on a site that holds a password: the service keeps it. */
  passwordKept: string[];
  expired: ExpiredRules;
  /** The updated sites as compared (a field whose ignore rule expired no longer ignored), by domain. */
  compared: Map<string, DesiredWebsite>;
  unchanged: number;
  unverifiable: number;
  ignoredDrift: number;
  /** The live sites by coverage class; listed + unlistedInScope are the ones in scope (the safety percentage). */
  coverage: CoverageCounts;
}

/**
 * `baseline`: the configuration at a git revision (normally the one last
 * applied): write-only values changed since are sent, and every change is
 * classified pending, drift or conflict (baseline.ts).
 */
export function plan(
  desired: readonly DesiredWebsite[],
  live: readonly LiveWebsite[],
  policy: PlanPolicy,
  baseline?: Baseline,
): Plan {
  const tally: Tally = {
    changes: [],
    ignoredOnly: [],
    outOfScope: [],
    kept: [],
    unlistedDrift: [],
    protected: [],
    unverified: [],
    ignored: [],
    filtered: [],
    passwordKept: [],
    expired: new ExpiredRules(),
    compared: new Map(),
    unchanged: 0,
    unverifiable: 0,
    ignoredDrift: 0,
    coverage: { listed: 0, outOfScope: 0, unlistedInScope: 0, pruned: 0 },
  };
  const { byDomain: liveByDomain, duplicates } = indexLiveByDomain(live);
  const baseSites = baseline === undefined ? undefined : baselineSites(baseline);
  const sites = firstOfEachDomain(desired);
  planListed(sites, liveByDomain, live, policy, tally, baseSites);
  planUnlisted(liveByDomain, sites, policy, tally, baseSites);
  tally.changes.sort(byActionThenDomain);
  const notes = [...notesOf(tally, policy), ...duplicates.map(duplicateNote)];
  const result: Plan = {
    changes: tally.changes,
    notes,
    safety: [],
    summary: summaryOf(tally),
    coverage: coverageOf(tally.coverage, duplicates),
  };
  result.notes.push(...possibleRenames(tally, liveByDomain, baseSites));
  if (tally.ignoredOnly.length > 0) result.ignoredOnly = tally.ignoredOnly.sort(byDomain);
  result.safety = checkSafety(result, {
    limits: policy.limits,
    prune: policy.prune,
    desiredCount: sites.length,
    inScopeLiveCount: tally.coverage.listed + tally.coverage.unlistedInScope,
  });
  if (baseline !== undefined) {
    // Classified as compared: a field whose ignore rule expired is compared again, like a rule taken out.
    classifyPlan(result, baseline, [...tally.compared.values()], liveByDomain, baseSites);
  } else if (policy.unlistedIsDrift === true) {
    result.summary.drift = tally.unlistedDrift.length;
  }
  return result;
}

/**
 * The creates of a plan that the service must not be asked for: a domain
 * `validate` accepts only because the service may already hold it
 * (`isAdoptableDomain`), and the live listing does not. The planner plans
 * them like any create; the caller refuses the plan (validation cannot see
 * the live sites, the planner has no words).
 */
export function uncreatableDomains(result: Plan): string[] {
  return result.changes.flatMap((change) =>
    change.action === 'create' && !isStorableDomain(change.domain) ? [change.domain] : [],
  );
}

/**
 * The desired sites, the first of each domain (the config loader rejects
 * duplicates; a library caller may not). The loader's list comes in ascending
 * domain order, which rules duplicates out without a set of every domain (a
 * large share of a cold plan's time and allocation).
 */
function firstOfEachDomain(desired: readonly DesiredWebsite[]): readonly DesiredWebsite[] {
  let i = 1;
  while (i < desired.length && (desired[i - 1] as DesiredWebsite).domain < (desired[i] as DesiredWebsite).domain) i++;
  if (i >= desired.length) return desired; // strictly ascending (byDomain's order): no domain twice
  const seen = new Set<string>();
  return desired.filter((site) => {
    if (seen.has(site.domain)) return false;
    seen.add(site.domain);
    return true;
  });
}

/** Creates and updates for the listed sites (one per domain), and the count of listed live sites. */
function planListed(
  sites: readonly DesiredWebsite[],
  liveByDomain: ReadonlyMap<string, LiveWebsite>,
  live: readonly LiveWebsite[],
  policy: PlanPolicy,
  tally: Tally,
  baseSites?: ReadonlyMap<string, DesiredWebsite>,
): void {
  const scope = scopeOf(policy);
  const resendOf = writeOnlyResend(policy);
  // Found at the first create: a plan without creates need not look at every live site for it.
  let serverWriteOnly: ReadonlySet<SettingName> | undefined;
  // Runs once per site while the code is still cold: an index loop (for...of allocates a step object per site
  // until optimised), and a short body (creates and updates are functions of their own), optimised sooner.
  for (let i = 0; i < sites.length; i++) {
    const written = sites[i] as DesiredWebsite;
    const current = liveByDomain.get(written.domain);
    if (current !== undefined) tally.coverage.listed += 1;
    if (!scope.selected(written.domain)) {
      tally.filtered.push(written.domain);
      continue;
    }
    const site = tally.expired.compared(written, policy.today);
    if (current === undefined) {
      serverWriteOnly ??= writeOnlySettings(live);
      planCreate(site, serverWriteOnly, tally);
    } else if (inSync(site, current)) {
      // The usual site: nothing to compare further, nothing to allocate (nor with a baseline: nothing unreadable, no password).
      tally.unchanged += 1;
    } else planUpdate(site, current, resendOf(site.domain), tally, baseSites?.get(site.domain));
  }
}

function planCreate(site: DesiredWebsite, serverWriteOnly: ReadonlySet<SettingName>, tally: Tally): void {
  const after = canonicalSettings(site.settings);
  const fields = createFields(site, after, serverWriteOnly);
  const unverifiable = fields.filter((field) => field.writeOnly).length;
  if (unverifiable > 0) tally.unverified.push(site.domain);
  tally.unverifiable += unverifiable;
  tally.changes.push({ action: 'create', domain: site.domain, id: null, after, fields });
}

/** `base`: the site at the baseline, if any (and listed there). */
function planUpdate(
  site: DesiredWebsite,
  current: LiveWebsite,
  resend: Resend,
  tally: Tally,
  base?: DesiredWebsite,
): void {
  const comparison = compareSite(site, current, resend);
  const fields = withBaselineWrites(comparison.fields, site, base, current);
  const { ignored, unverifiable } = comparison;
  if (unverifiable > 0) tally.unverified.push(site.domain);
  if (ignored.length > 0) tally.ignored.push(site.domain);
  tally.unverifiable += unverifiable;
  tally.ignoredDrift += ignored.length;
  if (fields.length === 0) {
    tally.unchanged += 1;
    if (ignored.length > 0) tally.ignoredOnly.push({ domain: site.domain, id: current.id, fields: ignored });
    return;
  }
  if (leavesPassword(fields, current)) tally.passwordKept.push(site.domain);
  tally.compared.set(site.domain, site);
  tally.changes.push({
    action: 'update',
    domain: site.domain,
    id: current.id,
    before: comparison.before,
    after: comparison.after,
    fields,
    ignored,
    fingerprint: fingerprintLive(current),
    ...(current.domain !== site.domain && { stored: current.domain }),
  });
}

/**
 * Live sites that are not listed. A listed site is managed wherever it is;
 * `manage` decides which unlisted sites are this configuration's: outside it
 * they are only counted, inside they are pruned, protected or kept.
 */
function planUnlisted(
  liveByDomain: ReadonlyMap<string, LiveWebsite>,
  sites: readonly DesiredWebsite[],
  policy: PlanPolicy,
  tally: Tally,
  baseSites?: ReadonlyMap<string, DesiredWebsite>,
): void {
  const counts = tally.coverage;
  // planListed counted the listed live sites: when that is all of them (the usual plan), none is unlisted.
  if (counts.listed === liveByDomain.size) return;
  const listed = new Set(sites.map((site) => site.domain));
  const scope = scopeOf(policy);
  for (const [domain, current] of liveByDomain) {
    if (listed.has(domain)) continue;
    if (!scope.inScope(domain)) {
      tally.outOfScope.push(domain);
      counts.outOfScope += 1;
      continue;
    }
    counts.unlistedInScope += 1;
    const pruned = policy.prune && !scope.isProtected(domain);
    if (pruned) counts.pruned += 1;
    if (!scope.selected(domain)) tally.filtered.push(domain);
    else if (!policy.prune) {
      // A site listed at the baseline was created through the configuration: unlisted since, not drift.
      if (policy.unlistedIsDrift === true && baseSites?.has(domain) !== true) tally.unlistedDrift.push(domain);
      else tally.kept.push(domain);
    } else if (!pruned) tally.protected.push(domain);
    else tally.changes.push(deleteOf(domain, current));
  }
}

/**
 * Whether an update takes privacy away from password on a site the service
 * says holds one (or does not say): the real service keeps a stored password
 * through a change to public or private, and a later switch back to password
 * without sending one would use it again.
 */
function leavesPassword(fields: readonly FieldChange[], current: LiveWebsite): boolean {
  const privacy = fields.find((field) => field.field === 'privacy');
  return privacy?.before === 'password' && privacy.after !== 'password' && current.hasPassword !== false;
}

function summaryOf(tally: Tally): PlanSummary {
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    delete: 0,
    unchanged: tally.unchanged,
    outOfScope: tally.outOfScope.length,
    kept: tally.kept.length + tally.unlistedDrift.length + tally.protected.length,
    unverifiable: tally.unverifiable,
    ignoredDrift: tally.ignoredDrift,
  };
  for (const change of tally.changes) summary[change.action] += 1;
  return summary;
}

/**
 * With prune off, a domain edit creates a second site and keeps the old one
 * silently: a create whose settings match a kept site is noted as a likely rename.
 */
function possibleRenames(
  tally: Tally,
  liveByDomain: ReadonlyMap<string, LiveWebsite>,
  baseSites?: ReadonlyMap<string, DesiredWebsite>,
): Note[] {
  // A baseline tells a domain edit for sure (listed then, not now; new since), so
  // sites that merely share the default settings are not paired.
  const wasListed = (domain: string) => baseSites === undefined || baseSites.has(domain);
  const isNew = (domain: string) => baseSites === undefined || !baseSites.has(domain);
  const creates = tally.changes.filter(
    (change): change is CreateChange => change.action === 'create' && isNew(change.domain),
  );
  const kept = [...tally.kept]
    .filter(wasListed)
    .sort()
    .flatMap((domain) => {
      const current = liveByDomain.get(domain);
      return current === undefined ? [] : [{ domain, before: liveSettings(current) }];
    });
  return renamePairs(kept, creates).map(([old, created]) => ({
    kind: 'possible_rename',
    domains: [created.domain],
    renameOf: old.domain,
  }));
}

function deleteOf(domain: string, current: LiveWebsite): Change {
  const change: Change = {
    action: 'delete',
    domain,
    id: current.id,
    before: liveSettings(current),
    fingerprint: fingerprintLive(current),
  };
  if (current.createdAt !== undefined) change.createdAt = current.createdAt;
  if (current.domain !== domain) change.stored = current.domain;
  return change;
}

/**
 * The service checks uniqueness on the raw string, so `x.example.` and
 * `x.example` can both exist: the oldest is matched, the others are only
 * reported (never updated, never pruned: which one holds the history is the
 * user's call, made by hand).
 */
function duplicateNote(duplicate: DuplicateDomain): Note {
  return { kind: 'duplicate_domain', domains: [duplicate.domain], ids: [duplicate.kept, ...duplicate.others] };
}

function byActionThenDomain(a: Change, b: Change): number {
  const order = ACTION_ORDER[a.action] - ACTION_ORDER[b.action];
  return order !== 0 ? order : byDomain(a, b);
}

const sorted = (domains: string[]): string[] => [...domains].sort();

/** `manage` covers every domain: with prune, every unlisted site of the account is a delete. */
function wholeAccount(manage: PlanPolicy['manage']): boolean {
  return manage.include.includes('*') && manage.exclude.length === 0;
}

function notesOf(tally: Tally, policy: PlanPolicy): Note[] {
  const notes: Note[] = [];
  if (policy.prune && wholeAccount(policy.manage)) {
    // Always, even with nothing to delete today: the risk is in the configuration, not in this plan.
    // The changes are sorted already (deletes first, by domain).
    const deleted = tally.changes.flatMap((change) => (change.action === 'delete' ? [change.domain] : []));
    notes.push({ kind: 'prune_unscoped', domains: deleted });
  }
  const add = (kind: Note['kind'], domains: string[], count?: number): void => {
    if (domains.length === 0) return;
    notes.push(count === undefined ? { kind, domains: sorted(domains) } : { kind, domains: sorted(domains), count });
  };
  add('out_of_scope', tally.outOfScope);
  add('kept_not_in_config', tally.kept);
  add('unlisted_drift', tally.unlistedDrift);
  add('protected', tally.protected);
  add('write_only_unverified', tally.unverified, tally.unverifiable);
  add('ignored_drift', tally.ignored, tally.ignoredDrift);
  add('filtered', tally.filtered);
  add('password_kept', tally.passwordKept);
  notes.push(...tally.expired.notes());
  return notes;
}
