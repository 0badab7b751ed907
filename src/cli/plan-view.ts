/**
 * What `sitesync plan` prints: one plan (human, JSON or Markdown), the
 * report over targets, and the exact command that applies a saved plan.
 */
import { allFlags } from '../apply/acknowledge.js';
import type { Attribution } from '../model/attribution.js';
import type { Plan } from '../model/plan.js';
import { blockingViolations } from '../model/policies.js';
import type { SiteExplanation } from '../plan/index.js';
import { renderHuman, renderJson, renderMarkdown } from '../render/index.js';
import { renderTargetsHuman, renderTargetsJson, renderTargetsMarkdown, type TargetReport } from '../render/targets.js';
import type { SharedOptions } from './shared-options.js';

/** A plan is acknowledged by nothing yet: its Markdown lists every flag the apply on merge needs. */
const NO_ACKNOWLEDGEMENTS = { allowDelete: [] };

/** Every flag the apply on merge needs for this plan: its safety violations and broken error policies. */
export function acknowledgeFlags(result: Plan): string[] {
  return allFlags(result.safety, NO_ACKNOWLEDGEMENTS, blockingViolations(result.policies));
}

export function renderTargetReports(reports: readonly TargetReport[], shared: SharedOptions): string {
  switch (shared.format) {
    case 'json':
      return renderTargetsJson(reports);
    case 'markdown':
      return renderTargetsMarkdown(reports);
    case 'human':
      return renderTargetsHuman(reports, { color: shared.color });
  }
}

export function renderPlan(
  result: Plan,
  shared: SharedOptions,
  target: string,
  explanation?: SiteExplanation[],
  attribution?: Attribution,
): string {
  const extra = {
    ...(explanation !== undefined && { explain: explanation }),
    ...(attribution !== undefined && { attribution }),
  };
  switch (shared.format) {
    case 'json':
      return renderJson(result, { target, ...extra });
    case 'markdown':
      return renderMarkdown(result, {
        target,
        acknowledge: acknowledgeFlags(result),
        ...(attribution !== undefined && { attribution }),
      });
    case 'human':
      return renderHuman(result, { color: shared.color, target, ...extra });
  }
}

/**
 * The exact command that applies a saved plan: apply loads the same
 * configuration (its digest is checked) against the same target.
 */
export function applyCommand(shared: Pick<SharedOptions, 'files' | 'url'>, planFile: string): string {
  const args = ['sitesync', 'apply'];
  for (const file of shared.files) args.push('-f', file);
  if (shared.url !== undefined) args.push('--url', shared.url);
  args.push(planFile);
  return args.map(shellWord).join(' ');
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
