/**
 * The engine's half of "never lose a write-only change" (../plan/unsent-writes.ts):
 * before an apply that will move the applied tag writes anything, the
 * configuration at the commit the tag names now is loaded and every
 * write-only value changed since then must be in the plan; otherwise the
 * apply is refused, naming each site and value.
 */

import { SitesyncError } from '../model/errors.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import { listFirst } from '../model/text.js';
import { CONFIG_FIELD_NAMES, type DesiredWebsite, type LiveWebsite } from '../model/website.js';
import { unsentWrites } from '../plan/index.js';
import { type BaselineAt, baselineFor } from './baseline.js';
import { origin } from './baseline-resolve.js';
import type { EngineContext } from './context.js';
import type { MarkTarget } from './mark-applied.js';
import type { RunRequest } from './request.js';

export async function refuseUnsentWrites(
  mark: MarkTarget | undefined,
  shared: RunRequest,
  given: { plan: Plan; desired: readonly DesiredWebsite[]; live: readonly LiveWebsite[]; policy: PlanPolicy },
  io: Pick<EngineContext, 'env' | 'cwd'>,
): Promise<void> {
  // The first mark has no earlier applied commit to judge against (markApplied says so).
  if (mark?.from === undefined || given.plan.baseline?.commit === mark.from.commit) return;
  const ref = { ref: mark.tag, commit: mark.from.commit, source: 'default' as const, ...origin(mark.from) };
  const at: BaselineAt = { ref, label: `--mark-applied ${mark.tag}`, hint: '' };
  const applied = await baselineFor(shared, at, io);
  if (applied === undefined) return;
  const unsent = unsentWrites(given.plan, given.desired, given.live, given.policy, applied);
  if (unsent.length === 0) return;
  const sites = unsent.map(
    ({ domain, fields }) => `${domain} (${fields.map((field) => CONFIG_FIELD_NAMES[field]).join(', ')})`,
  );
  const judged = given.plan.baseline === undefined ? 'without a baseline' : `against ${given.plan.baseline.ref}`;
  throw new SitesyncError(
    'usage',
    `--mark-applied ${mark.tag}: the tag would move from ${mark.from.commit.slice(0, 12)} past write-only changes this plan does not send (it was made ${judged}): ${listFirst(sites, 10)}; nothing was applied: plan against the applied tag (sitesync plan --baseline ${mark.tag}) so they are sent, and apply that`,
  );
}
