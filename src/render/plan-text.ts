/**
 * The words of a plan's notes and safety violations. The plan carries only
 * their structure (kind or rule, domains, counts, limit, actual); every
 * renderer, the JSON document and apply's refusal word them here, once.
 */
import type { BaselineRef, ChangeClass, Coverage, Note, PlanSummary, SafetyViolation } from '../model/plan.js';
import type { PolicyViolation } from '../model/policies.js';
import { countOf, listFirst } from '../model/text.js';
import { CONFIG_FIELD_NAMES } from '../model/website.js';

/** Plain words: a note is plain text in the terminal and in JSON (backticks would show as they are, issue 38). */
export const PRUNE_UNSCOPED_TEXT =
  'prune is on and no manage scope is set: every website of the account that is not listed will be deleted (within limits)';

/** Domains named in a safety message before a count takes over. */
const LISTED = 5;

export function noteText(note: Note): string {
  const sites = countOf(note.domains.length, 'website');
  const count = note.count ?? note.domains.length;
  switch (note.kind) {
    case 'prune_unscoped':
      return PRUNE_UNSCOPED_TEXT;
    case 'out_of_scope':
      return `${sites} outside this configuration's scope`;
    case 'kept_not_in_config':
      return `${sites} not in configuration, kept (prune is off)`;
    case 'unlisted_drift':
      return `${sites} in scope but not in the configuration: drift (created outside it; --unlisted-is-drift)`;
    case 'protected':
      return `${sites} not in configuration, kept: protected`;
    case 'write_only_unverified':
      return `${countOf(count, 'write-only value')} cannot be verified: the service does not return them`;
    case 'ignored_drift':
      return `${countOf(count, 'field')} drifted but ${count === 1 ? 'is' : 'are'} in ignore_changes: not changed`;
    case 'filtered':
      return `${sites} left out by --only/--skip`;
    case 'duplicate_domain': {
      const [kept, ...others] = note.ids ?? [];
      const them = others.length === 1 ? `id ${others[0]}` : `ids ${others.join(', ')}`;
      return `${note.domains[0]} is held ${others.length + 1} times by the service (ids ${[kept, ...others].join(', ')}): sitesync manages the oldest (id ${kept}); ${them} ${others.length === 1 ? 'is' : 'are'} never changed or pruned: remove by hand what is not needed`;
    }
    case 'ignore_expired': {
      const field = note.field === undefined ? 'a field' : CONFIG_FIELD_NAMES[note.field];
      const reason = note.reason === undefined ? '' : ` (reason: ${note.reason})`;
      return `ignore_changes for ${field} expired on ${note.until} (UTC)${reason}: ${field} is compared again on ${sites}; remove the rule or move its until`;
    }
    case 'password_kept':
      return `${sites} ${note.domains.length === 1 ? 'leaves' : 'leave'} privacy password: the service keeps the stored password (it still reads password: true), and a later switch back to password without a new one would use it again`;
    case 'possible_rename':
      return `${note.domains[0]} looks like a rename of ${note.renameOf}: the service cannot rename a website, so ${note.domains[0]} will be a second site and ${note.renameOf} is kept (prune is off); to move, let the old site go by pruning it, or keep the old domain`;
  }
}

/** The line every format shows when a plan was classified against a git baseline. */
export function baselineText(ref: BaselineRef): string {
  const short = ref.commit.slice(0, 12);
  const where = ref.fetchedFrom === undefined ? '' : `, fetched from ${ref.fetchedFrom}`;
  const line =
    ref.source === 'default'
      ? `Compared with the default baseline ${ref.ref} (${short}${where}), the tag apply --mark-applied moves (--no-baseline turns it off)`
      : `Compared with the baseline ${ref.ref} (${short}${where})`;
  const notes: string[] = [];
  if (ref.insteadOf !== undefined) {
    notes.push(
      `${ref.insteadOf.ref} (${ref.insteadOf.commit.slice(0, 12)}) is ahead of the applied tag: its changes were not applied yet, so they are pending, not drift`,
    );
  }
  if (ref.noConfiguration === true) {
    notes.push('the configuration did not exist there (a first configuration): every change is pending');
  }
  return notes.length === 0 ? line : `${line}; ${notes.join('; ')}`;
}

/** ` [drift]` after a site or field, nothing without a class. */
export function classTag(changeClass: ChangeClass | undefined): string {
  return changeClass === undefined ? '' : ` [${changeClass}]`;
}

const CLASS_MEANING: Readonly<Record<ChangeClass, string>> = {
  drift: 'Drift (the live websites moved; repair them with apply, or adopt the change in the configuration)',
  conflict: 'Conflict (both the configuration and the live websites changed, differently)',
  pending: 'Pending (configuration changes waiting for apply)',
};

/** One line per class that has sites: what it means and which sites (drift first: that is what a drift check is for). */
export function classLines(sites: readonly { domain: string; class?: ChangeClass | undefined }[]): string[] {
  return (['drift', 'conflict', 'pending'] as const).flatMap((each) => {
    const domains = sites.filter((site) => site.class === each).map((site) => site.domain);
    return domains.length === 0 ? [] : [`${CLASS_MEANING[each]}: ${listFirst(domains, 10)}`];
  });
}

/** `2 pending, 1 drift, 0 conflicts`, or undefined when the plan has no classes. */
export function classCountsText(summary: PlanSummary): string | undefined {
  if (summary.pending === undefined && summary.drift === undefined && summary.conflict === undefined) return undefined;
  const conflicts = summary.conflict ?? 0;
  return `${summary.pending ?? 0} pending, ${summary.drift ?? 0} drift, ${conflicts} ${conflicts === 1 ? 'conflict' : 'conflicts'}`;
}

export function violationText(violation: SafetyViolation): string {
  const { domains } = violation;
  switch (violation.rule) {
    case 'empty_config_prune':
      return `the configuration lists no websites and prune is on: ${countOf(domains.length, 'website')} would be deleted`;
    case 'max_deletes':
      return `${countOf(domains.length, 'delete')} ${domains.length === 1 ? 'exceeds' : 'exceed'} limits.max_deletes (${violation.limit}): ${listFirst(domains, LISTED)}`;
    case 'max_change_percent':
      return `${domains.length} of the ${violation.total} in-scope websites (${violation.actual}%) would be updated or deleted: over limits.max_change_percent (${violation.limit}%)`;
    case 'suspected_rename': {
      const old = domains[0];
      return `${old} → ${violation.renamedTo} looks like a rename: the service cannot rename a website, so ${old} and its whole analytics history would be deleted`;
    }
  }
}

/** `Coverage: 20 of 22 live websites managed (90.9%); 2 unmanaged: 1 outside manage, 1 not listed, kept`. */
export function coverageText(coverage: Coverage): string {
  if (coverage.percent === null) return 'Coverage: the account has no websites.';
  const head = `Coverage: ${coverage.managed} of ${countOf(coverage.live, 'live website')} managed (${coverage.percent}%)`;
  if (coverage.unmanaged === 0) return `${head}.`;
  const reasons = [
    coverage.outOfScope > 0 ? `${coverage.outOfScope} outside manage` : '',
    coverage.kept > 0 ? `${coverage.kept} not listed, kept` : '',
    coverage.duplicates > 0 ? `${coverage.duplicates} ${coverage.duplicates === 1 ? 'duplicate' : 'duplicates'}` : '',
  ].filter((reason) => reason !== '');
  return `${head}; ${coverage.unmanaged} unmanaged: ${reasons.join(', ')}.`;
}

/** `bots (shop.example): production sites exclude bots`, and why it could not be evaluated when that is the case. */
export function policyViolationText(violation: PolicyViolation): string {
  const where = violation.domain === undefined ? '' : ` (${violation.domain})`;
  const error = violation.error === undefined ? '' : ` (${violation.error})`;
  return `${violation.policy}${where}: ${violation.message}${error}`;
}
