/**
 * Plan for one target: open a session (configuration, connection, client),
 * list and plan (classified against the baseline given), check that the
 * passwords a --sync-write-only plan sends are set, and sign the plan for a
 * later apply. Never writes to the service. The exit code is the caller's.
 */

import type { Attribution } from '../model/attribution.js';
import type { DesiredState } from '../model/desired-state.js';
import type { Plan } from '../model/plan.js';
import {
  createSavedPlan,
  explain,
  type SavedPlan,
  type SiteExplanation,
  signSavedPlan,
  type WriteOnlySync,
} from '../plan/index.js';
import { attribute, type BlameMemo, blameConfiguration } from './attribution.js';
import { type BaselineAt, type BaselineFlags, baselineFor, loadBaseline } from './baseline.js';
import type { EngineContext } from './context.js';
import { type EarlyListing, whileListing } from './early-listing.js';
import { liveSinceOf } from './live-since.js';
import { policiesOf } from './policies.js';
import { openSession, planSession, requireResentPasswords } from './prepare.js';
import { namesOf, type RunRequest } from './request.js';

export interface PlanRequest extends RunRequest, BaselineFlags {
  syncWriteOnly: WriteOnlySync | false;
  unlistedIsDrift: boolean;
  /** Also explain every compared field (raw and canonical values). */
  explain: boolean;
  /** Name each change's commit (git blame; docs/plan-format.md, "Attribution"); false: --no-attribution. */
  attribution?: boolean | undefined;
  /** --live-since FILE: a watch journal whose `drift` lines say since when each drifted site differs. */
  liveSince?: string | undefined;
  /** A run over targets: the blames its targets share (each file blamed once). */
  blames?: BlameMemo | undefined;
  /** A target's run: the baseline commit, resolved once for every target (undefined: none). */
  baselineAt?: BaselineAt | undefined;
}

export interface PlannedTarget {
  plan: Plan;
  /** The service's URL. */
  target: string;
  explanation?: SiteExplanation[];
  /** The commit of each change, when the configuration is in a git work tree (never part of the plan). */
  attribution?: Attribution;
  /** Signed with the connection's key: what a plan file holds (made on first read). */
  readonly saved: SavedPlan;
}

export async function planTarget(
  request: PlanRequest,
  context: EngineContext,
  loaded?: DesiredState,
  /** The full listing started with this request before `loaded` was read (engine/early-listing.ts). */
  early?: EarlyListing,
): Promise<PlannedTarget> {
  // Its own baseline (one target), or its target's files at the commit resolved for all.
  const baseline = await whileListing(early, () =>
    request.target === undefined
      ? loadBaseline(request.files, request, context)
      : baselineFor(request, request.baselineAt, context),
  );
  const session = await whileListing(early, () => openSession(request, context, undefined, 'check', loaded, early));
  const { api, state, connection } = session;
  // Blamed while the sites are listed; a git that fails attributes nothing and fails nothing.
  const blamed =
    request.attribution === false
      ? Promise.resolve(undefined)
      : blameConfiguration(state, baseline?.ref, context, request.blames).catch(() => undefined);
  try {
    const { live, policy, plan } = await planSession(session, request, context, {
      syncWriteOnly: request.syncWriteOnly,
      unlistedIsDrift: request.unlistedIsDrift,
      baseline,
    });
    requireResentPasswords(plan, policy, state.websites, context, namesOf(request));
    const { keyId, sign } = connection;
    const target = api.url;
    let saved: SavedPlan | undefined;
    const planned: PlannedTarget = {
      plan,
      target,
      // Built when asked for (plan --out, the library): a copy of every live site and a digest over it.
      get saved() {
        saved ??= signSavedPlan(
          // The command's -f files (with targets, those that declare them), not a target's own.
          createSavedPlan({
            target,
            configDigest: state.digest,
            keyId,
            policiesDigest: policiesOf(state)?.digest,
            policy,
            plan,
            live,
            files: request.rootFiles ?? request.files,
          }),
          sign,
        );
        return saved;
      },
    };
    if (request.explain) planned.explanation = explain(state.websites, live, policy);
    let attribution = attribute(plan, state, await blamed);
    if (request.liveSince !== undefined) {
      const liveSince = liveSinceOf(plan, request.liveSince, context.cwd, request.target?.name);
      attribution = { origins: new Map(), ...attribution, liveSince };
    }
    if (attribution !== undefined) planned.attribution = attribution;
    return planned;
  } finally {
    // An early listing may still run if planning stopped before awaiting it.
    await (early?.cancel() ?? api.close());
  }
}
