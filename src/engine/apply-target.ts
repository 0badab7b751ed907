/**
 * Apply for one target, the gate always inside (docs/architecture.md, Engine):
 *
 * 1. open a session (configuration, connection, client);
 * 2. from the configuration: list and plan (a `planned` event); from a saved
 *    plan: admit it (same target, key, configuration; signature; re-derived);
 * 3. the safety gate: every violation acknowledged, or `refused: unsafe`;
 * 4. nothing to change: `nothing_to_do`;
 * 5. ask (the `confirm` port, when given) and re-check freshness: a plan
 *    that moved is `refused: stale`;
 * 6. (`checkTarget` ends here with a target `ready` to write: over targets,
 *    the all-or-nothing barrier is the step between) write with read-back
 *    (`writing` and `change` events), and return `applied`.
 *
 * Exit codes, words and flags are the caller's: the outcome is data.
 */
import {
  type Acknowledgements,
  refusalOf,
  unacknowledged,
  unacknowledgedPolicies,
  unmatchedAllowPolicy,
} from '../apply/acknowledge.js';
import { applyPlan } from '../apply/apply-plan.js';
import type { Journal } from '../apply/journal.js';
import { listingCost } from '../apply/read-back.js';
import { checkFreshness } from '../apply/staleness.js';
import type { ApplyResult, MovedSite } from '../model/apply-result.js';
import type { DesiredState } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { frozenCopy } from '../model/frozen.js';
import { matchesGlob } from '../model/glob.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import { blockingViolations, violationKey } from '../model/policies.js';
import { listFirst } from '../model/text.js';
import type { DesiredWebsite } from '../model/website.js';
import {
  admissionRefusal,
  fingerprintsOf,
  liveCountOf,
  rederive,
  type SavedPlan,
  type SiteFingerprint,
  signatureVerifies,
  type WriteOnlySync,
} from '../plan/index.js';
import { divergenceText, rederivedRefusalText } from '../render/apply-result.js';
import type { SafetyRefusal } from '../render/safety-refusal.js';
import { type BaselineAt, type BaselineFlags, baselineFor, recordedBaseline, resolveBaseline } from './baseline.js';
import type { EngineContext } from './context.js';
import type { MarkTarget } from './mark-applied.js';
import { policiesOf, policyReport } from './policies.js';
import { openSession, planSession, type Session, targetedDomains } from './prepare.js';
import { namesOf, type RunRequest } from './request.js';
import { refuseUnsentWrites } from './write-only-since.js';

/** The answer at a confirmation: `eof` is the end of input, `interrupted` Ctrl-C or SIGTERM. */
export type Answer = 'yes' | 'no' | 'eof' | 'interrupted';

export interface ApplyRequest extends RunRequest, BaselineFlags {
  /** Changes in flight at once. */
  parallelism: number;
  acks: Acknowledgements;
  syncWriteOnly: WriteOnlySync | false;
  unlistedIsDrift: boolean;
  /** A target's run: the baseline commit, resolved once for every target (undefined: none). */
  baselineAt?: BaselineAt | undefined;
  /** When the run started (ms since the epoch): the result's elapsed time counts from it. */
  started?: number | undefined;
  /** --mark-applied, checked before anything is written: no write-only change since the tag may go unsent. */
  mark?: MarkTarget | undefined;
}

/** What the caller supplies to one apply, beyond the request. */
export interface ApplyPorts {
  /** Asked once the plan is known and safe; absent: approved (--auto-approve, a reviewed plan). */
  confirm?: ((plan: Plan, target: string) => Promise<Answer>) | undefined;
  /** Opened just before the first write. */
  openJournal?: (() => Journal) | undefined;
  /** Over several targets: the --allow-delete globs matching no delete here; the run decides. Absent: refused here. */
  allowDeleteAcrossTargets?: ((unmatched: readonly string[]) => Promise<void>) | undefined;
}

/** A saved plan to apply, and how to name it in messages. */
export interface SavedSource {
  saved: SavedPlan;
  /** `plan.json`, or `plan.json (target prod)`. */
  label: string;
}

export type ApplyRefusal =
  | { reason: 'unsafe'; refusal: SafetyRefusal }
  | { reason: 'cancelled'; answer: Exclude<Answer, 'yes'> }
  /** Interrupted before the first write. */
  | { reason: 'interrupted' }
  /** The live state moved since the plan was made (or, confirming, since it was shown). */
  | { reason: 'stale'; moved: MovedSite[] };

export type ApplyOutcome =
  | { kind: 'nothing_to_do'; plan: Plan; target: string }
  | { kind: 'refused'; plan: Plan; target: string; refusal: ApplyRefusal }
  | { kind: 'applied'; plan: Plan; target: string; result: ApplyResult };

/** Applies the configuration (`source` undefined) or a saved plan to one target: `checkTarget`, then its writes. */
export async function applyTarget(
  request: ApplyRequest,
  context: EngineContext,
  ports: ApplyPorts = {},
  source?: SavedSource,
  loaded?: DesiredState,
): Promise<ApplyOutcome> {
  const checked = await checkTarget(request, context, ports, source, loaded);
  return checked.kind === 'ready' ? checked.write() : checked;
}

/**
 * A target that passed every check (steps 1 to 5): nothing is written until
 * `write()`; `release()` gives it up (its client is closed either way). The
 * all-or-nothing barrier over targets sits between the two.
 */
export interface Ready {
  kind: 'ready';
  plan: Plan;
  target: string;
  write(): Promise<ApplyOutcome>;
  release(): Promise<void>;
}

/** Steps 1 to 5 for one target: an outcome that writes nothing, or a target ready to write. */
export async function checkTarget(
  request: ApplyRequest,
  context: EngineContext,
  ports: ApplyPorts = {},
  source?: SavedSource,
  loaded?: DesiredState,
): Promise<ApplyOutcome | Ready> {
  const started = request.started ?? Date.now();
  const session = await openSession(request, context, request.parallelism, 'resolve', loaded);
  const release = () => session.api.close();
  let ready = false;
  try {
    const made =
      source === undefined
        ? await planned(session, request, context)
        : await admitted(session, request, context, source);
    const { plan, liveCount } = made;
    let { fingerprints } = made;
    const target = session.api.url;
    const open = unacknowledged(plan.safety, request.acks);
    // A broken error policy blocks the changes; a plan with none to make has nothing to refuse.
    const policies = plan.changes.length > 0 ? unacknowledgedPolicies(plan.policies, request.acks) : [];
    const blocked = open.length > 0 || policies.length > 0;
    const freshness = (against: readonly SiteFingerprint[]) =>
      checkFreshness(plan.changes, against, session.api, { liveCount, signal: context.signal });
    // A saved plan (only it has fingerprints here) re-applied after every change was made has nothing
    // left to acknowledge, so nothing to refuse. Blocked means changes: a plan with none breaks nothing.
    let skip: ReadonlyMap<string, string> | undefined;
    if (fingerprints !== undefined && blocked) {
      const fresh = await freshness(fingerprints);
      if (fresh.moved.length > 0)
        return { kind: 'refused', plan, target, refusal: { reason: 'stale', moved: fresh.moved } };
      skip = fresh.alreadyApplied;
    }
    if (skip === undefined || skip.size < plan.changes.length) {
      await refuseUnmatchedAllowDelete(plan, request, ports);
      refuseUnmatchedAllowPolicy(plan, request);
      if (blocked) {
        const refusal = refusalOf(open, request.acks, policies);
        return { kind: 'refused', plan, target, refusal: { reason: 'unsafe', refusal } };
      }
    }
    if (plan.changes.length === 0) return { kind: 'nothing_to_do', plan, target };
    if (ports.confirm !== undefined) {
      const answer = await ports.confirm(plan, target);
      if (answer !== 'yes') return { kind: 'refused', plan, target, refusal: { reason: 'cancelled', answer } };
      fingerprints ??= fingerprintsOf(plan);
    }
    // A saved plan, or one a person took minutes to confirm: it must still hold.
    if (fingerprints !== undefined && skip === undefined) {
      const fresh = await freshness(fingerprints);
      if (fresh.moved.length > 0)
        return { kind: 'refused', plan, target, refusal: { reason: 'stale', moved: fresh.moved } };
      skip = fresh.alreadyApplied;
    }
    const writing = { liveCount, skip, started, parallelism: request.parallelism, commit: request.mark?.commit };
    const write = async (): Promise<ApplyOutcome> => {
      try {
        if (context.signal?.aborted) return { kind: 'refused', plan, target, refusal: { reason: 'interrupted' } };
        return { kind: 'applied', plan, target, result: await writeChanges(plan, session, writing, context, ports) };
      } finally {
        await release();
      }
    };
    ready = true;
    return { kind: 'ready', plan, target, write, release };
  } finally {
    if (!ready) await release();
  }
}

interface Made {
  plan: Plan;
  liveCount: number;
  /** What to check freshness against; undefined: no check (planned just now, applied without asking). */
  fingerprints?: readonly SiteFingerprint[] | undefined;
}

/** The baseline of this run: its own (single target), or its target's at the commit resolved for all. */
async function runBaseline(request: ApplyRequest, context: EngineContext) {
  const at = request.target === undefined ? await resolveBaseline(request.files, request, context) : request.baselineAt;
  return baselineFor(request, at, context);
}

async function planned(session: Session, request: ApplyRequest, context: EngineContext): Promise<Made> {
  const { liveCount, plan, live, policy } = await planSession(session, request, context, {
    syncWriteOnly: request.syncWriteOnly,
    unlistedIsDrift: request.unlistedIsDrift,
    baseline: await runBaseline(request, context),
  });
  context.events({ type: 'planned', plan, target: session.api.url });
  await refuseUnsentWrites(request.mark, request, { plan, desired: session.state.websites, live, policy }, context);
  return { plan, liveCount };
}

/** A saved plan admitted here: same target, key and configuration, signed, and what the planner makes of it now. */
async function admitted(
  session: Session,
  request: ApplyRequest,
  context: EngineContext,
  source: SavedSource,
): Promise<Made> {
  const { saved, label } = source;
  const { state } = session;
  const here = {
    target: session.api.url,
    keyId: session.connection.keyId,
    configDigest: state.digest,
    policiesDigest: policiesOf(state)?.digest,
  };
  const refusal = admissionRefusal(saved, here, label);
  if (refusal !== undefined) throw new SitesyncError('stale_plan', refusal);
  if (!signatureVerifies(saved, session.connection.sign)) {
    throw new SitesyncError(
      'stale_plan',
      `${label} was modified after sitesync plan wrote it (its signature does not verify with this API key): make the plan again and review it`,
    );
  }
  // Signed by a key holder is not enough: the file must be what the planner makes of this configuration.
  // A plan classified against a baseline is re-derived against the same commit (a target's: its files there).
  const recorded = saved.plan.baseline;
  const at =
    recorded === undefined
      ? undefined
      : await recordedBaseline(request.rootFiles ?? request.files, recorded, label, context);
  if (at?.ref.fetchedFrom !== undefined) {
    const { ref, commit, fetchedFrom } = at.ref;
    const message = `note: the baseline ${ref} (${commit.slice(0, 12)}) of ${label} was fetched from ${fetchedFrom}: this clone lacked it`;
    context.events({ type: 'notice', message });
  }
  const baseline = await baselineFor(request, at, context);
  const desired = session.state.websites;
  const rules = (derived: Plan, policy: PlanPolicy) => policyReport(derived, state, policy, request.target?.name);
  const { differences, policy } = rederive(saved, desired, state.policy, baseline, rules);
  if (differences.length > 0) throw new SitesyncError('stale_plan', rederivedRefusalText(label, differences));
  await refuseUnsentWrites(request.mark, request, { plan: saved.plan, desired, live: saved.live, policy }, context);
  if (request.markApplied !== undefined && (saved.policy.only.length > 0 || saved.policy.skip.length > 0)) {
    throw new SitesyncError(
      'usage',
      `--mark-applied cannot apply ${label}: it was planned with --only or --skip, and the tag marks a whole apply`,
    );
  }
  // A plan made from a targeted listing (--only exact domains) does not know the account's size: read per site.
  const liveCount = targetedDomains(saved.policy) === undefined ? liveCountOf(saved.plan) : Number.POSITIVE_INFINITY;
  return { plan: frozenCopy(saved.plan), liveCount, fingerprints: saved.fingerprints };
}

/** An --allow-delete that names no planned delete is a typo or a stale command line: say so rather than ignore it. */
async function refuseUnmatchedAllowDelete(plan: Plan, request: ApplyRequest, ports: ApplyPorts): Promise<void> {
  const { acks } = request;
  const deleted = plan.changes.filter((change) => change.action === 'delete').map((change) => change.domain);
  const unmatched = acks.allowDelete.filter((glob) => !deleted.some((domain) => matchesGlob(domain, glob)));
  if (ports.allowDeleteAcrossTargets !== undefined) return ports.allowDeleteAcrossTargets(unmatched);
  if (unmatched.length === 0) return;
  const what = deleted.length === 0 ? 'the plan deletes nothing' : `the plan deletes ${listFirst(deleted, 5)}`;
  const flag = namesOf(request).allowDelete;
  throw new SitesyncError('usage', `${flag} ${unmatched.join(', ')} matches no planned delete (${what})`);
}

/**
 * An --allow-policy that names no broken error policy of the plan is a typo or a stale command line.
 * Over targets, a name may belong to another target's plan: each target then ignores the others'.
 */
function refuseUnmatchedAllowPolicy(plan: Plan, request: ApplyRequest): void {
  if (request.target !== undefined) return;
  const unmatched = unmatchedAllowPolicy(plan.policies, request.acks);
  if (unmatched.length === 0) return;
  const broken = blockingViolations(plan.policies).map(violationKey);
  const what = broken.length === 0 ? 'the plan breaks no error policy' : `the plan breaks ${listFirst(broken, 5)}`;
  throw new SitesyncError('usage', `--allow-policy ${unmatched.join(', ')} names no broken error policy (${what})`);
}

interface Writing {
  /** The commit being applied, when known (--mark-applied): the journal's `begin` records it (sitesync history). */
  commit?: string | undefined;
  liveCount: number;
  skip?: ReadonlyMap<string, string> | undefined;
  started: number;
  parallelism: number;
}

/** The writes and their read-back, journalled; `change` events as each finishes. */
async function writeChanges(plan: Plan, session: Session, writing: Writing, context: EngineContext, ports: ApplyPorts) {
  const { api } = session;
  const journal: Journal | undefined = ports.openJournal?.();
  const liveCount = writing.liveCount + plan.changes.filter((c) => c.action === 'create').length;
  const total = plan.changes.length;
  context.events({
    type: 'writing',
    total,
    pacing: api.pacing,
    requestsAfter: Math.min(listingCost(liveCount), total),
  });
  const desired = new Map<string, DesiredWebsite>(session.state.websites.map((site) => [site.domain, site]));
  try {
    journal?.record({ event: 'begin', url: api.url, total, ...(writing.commit && { commit: writing.commit }) });
    const applied = await applyPlan(plan, desired, api, {
      parallelism: writing.parallelism,
      ...(context.signal && { signal: context.signal }),
      ...(journal && { journal }),
      ...(writing.skip && { skip: writing.skip }),
      liveCount,
      onProgress: (progress) => context.events({ type: 'change', progress, total }),
    });
    // The whole run: the listing or staleness check counts as much as the writes.
    const result: ApplyResult = { ...applied, requests: api.stats.requests, elapsedMs: Date.now() - writing.started };
    journal?.record({
      event: 'end',
      counts: result.counts,
      interrupted: result.interrupted,
      divergences: result.verification.divergences.map((d) => ({ ...d, detail: divergenceText(d) })),
    });
    return result;
  } finally {
    journal?.close();
  }
}
