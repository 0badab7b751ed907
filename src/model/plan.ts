/**
 * The plan: plain data, nothing rendered (no English: notes and violations
 * carry kind, domains, counts and limits), no closures. It can be saved,
 * compared, and rendered many ways. `before` is always the live side and
 * `after` the desired side. Values are canonical (see website.ts); a password
 * value never appears here, only the fact that one will be sent.
 */
import type { ConfigPolicy } from './desired-state.js';
import type { DesiredWebsite, FieldName, SettingName, SettingValue, WebsiteSettings } from './website.js';

export type Action = 'create' | 'update' | 'delete';

/**
 * With a git baseline (the configuration as last applied): `pending` the
 * configuration changed since, the live side did not; `drift` the configuration
 * did not change, the live side moved; `conflict` both moved and disagree.
 * Absent without a baseline. See src/plan/baseline.ts.
 */
export type ChangeClass = 'pending' | 'drift' | 'conflict';

export interface FieldChange {
  field: FieldName;
  /** Live value; absent on create, and for write-only fields. */
  before?: SettingValue;
  /** Desired value; absent for a password (it is never written into a plan). */
  after?: SettingValue;
  /** The value is sent but cannot be read back, so it cannot be verified. */
  writeOnly?: boolean;
  /** With a baseline: why this field changes. */
  class?: ChangeClass;
}

/** Drift in a field listed in ignore_changes: shown, never changed. */
export interface IgnoredDrift {
  field: SettingName;
  before: SettingValue;
  after: SettingValue;
}

export interface CreateChange {
  action: 'create';
  domain: string;
  id: null;
  after: WebsiteSettings;
  /** Every field that the create sends, write-only ones marked. */
  fields: FieldChange[];
  class?: ChangeClass;
}

export interface UpdateChange {
  action: 'update';
  domain: string;
  id: number;
  before: Partial<WebsiteSettings>;
  after: WebsiteSettings;
  /** Only the fields that change (and write-only values being sent). */
  fields: FieldChange[];
  ignored: IgnoredDrift[];
  /** Digest of the live record this change was planned against. */
  fingerprint: string;
  /**
   * The domain as the service stores it, when that is not `domain` (capitals, a
   * trailing dot, `www.`, Unicode, or characters the canonical form drops:
   * `a\u200bb.example` is `ab.example`): shown beside it, so that no line names
   * another real domain than the record it acts on (issue 33 item 3).
   */
  stored?: string;
  /** The most serious class of its fields: conflict, then drift, then pending. */
  class?: ChangeClass;
}

export interface DeleteChange {
  action: 'delete';
  domain: string;
  id: number;
  before: Partial<WebsiteSettings>;
  /** When the site was created: how much analytics history a delete destroys. */
  createdAt?: string;
  fingerprint: string;
  /**
   * The domain as the service stores it, when that is not `domain` (capitals, a
   * trailing dot, `www.`, Unicode, or characters the canonical form drops:
   * `a\u200bb.example` is `ab.example`): shown beside it, so that no line names
   * another real domain than the record it acts on (issue 33 item 3).
   */
  stored?: string;
  class?: ChangeClass;
}

export type Change = CreateChange | UpdateChange | DeleteChange;

export type NoteKind =
  | 'out_of_scope' // live sites outside `manage`: never touched
  | 'kept_not_in_config' // in scope, not listed, prune off
  | 'protected' // would be pruned, but `protect` matches
  | 'write_only_unverified' // values that cannot be read back
  | 'ignored_drift' // drift in ignore_changes fields
  | 'filtered' // excluded by --only / --skip
  | 'prune_unscoped' // prune is on and `manage` covers the whole account
  | 'duplicate_domain' // the service holds one canonical domain more than once: one note per group
  | 'unlisted_drift' // --unlisted-is-drift: in scope, not listed, prune off: created outside the configuration
  | 'possible_rename' // prune off: a create whose settings match a kept site (a domain edit makes a second site)
  | 'ignore_expired' // an ignore_changes rule's `until` has passed: its field is compared again (one note per rule)
  | 'password_kept'; // an update leaves privacy password: the service keeps the stored password, and would use it again

/** A note on the plan, as structure: render/plan-text.ts words it. */
export interface Note {
  kind: NoteKind;
  domains: string[];
  /** write_only_unverified: values; ignored_drift: fields (the domains are the sites). */
  count?: number;
  /** duplicate_domain: the site sitesync manages (the oldest, lowest id), then the others, never pruned. */
  ids?: number[];
  /** possible_rename: the kept live site that the created one (`domains[0]`) looks like a rename of. */
  renameOf?: string;
  /** ignore_expired: the rule's field, last day (YYYY-MM-DD, UTC) and reason as written. */
  field?: FieldName;
  until?: string;
  reason?: string;
}

export type SafetyRule = 'max_deletes' | 'max_change_percent' | 'empty_config_prune' | 'suspected_rename';

/** A broken safety rule, as structure: render/plan-text.ts words it. */
export interface SafetyViolation {
  rule: SafetyRule;
  /** The domains an acknowledgement must name (--allow-delete). */
  domains: string[];
  limit?: number;
  actual?: number;
  /** max_change_percent: the in-scope websites the percentage is of. */
  total?: number;
  /** max_change_percent: which of `domains` are deletes (naming them with --allow-delete takes them out of the share). */
  deletes?: string[];
  /** For a suspected rename: the domain that would be created. */
  renamedTo?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  unchanged: number;
  /** Live sites outside the configuration's scope. */
  outOfScope: number;
  /** Live sites in scope, not listed, kept (no prune, or protected). */
  kept: number;
  /** Write-only values that the plan cannot verify. */
  unverifiable: number;
  /** Fields with ignored drift. */
  ignoredDrift: number;
  /** With a baseline (or --unlisted-is-drift): changes by class; `drift` also counts unlisted_drift sites. */
  pending?: number;
  drift?: number;
  conflict?: number;
}

/** A listed site that is not changed, but drifted in `ignore_changes` fields (an update carries its own in `ignored`). */
export interface IgnoredOnlySite {
  domain: string;
  id: number;
  fields: IgnoredDrift[];
}

/**
 * How much of the account this configuration covers, counted over every live
 * record (like driftctl's coverage). Managed: listed, or unlisted inside
 * `manage` and pruned. Unmanaged: the rest, by reason.
 */
export interface Coverage {
  /** Live records of the account, every one (a domain held twice counts twice). */
  live: number;
  managed: number;
  /** `outOfScope + kept + duplicates`. */
  unmanaged: number;
  /** Unlisted, outside `manage`: never touched. */
  outOfScope: number;
  /** Unlisted, inside `manage`, kept: prune is off, or `protect` matches. */
  kept: number;
  /** The newer records of a domain the service holds more than once: never changed or pruned. */
  duplicates: number;
  /** `managed / live` in percent, rounded down to one decimal (never 100 while one is unmanaged); null with no live record. */
  percent: number | null;
}

export interface Plan {
  changes: Change[];
  notes: Note[];
  safety: SafetyViolation[];
  summary: PlanSummary;
  /**
   * Always set by the planner; removed for a targeted plan (--only exact domains: only those
   * sites were read, engine/prepare.ts); absent in a plan saved by an older sitesync.
   */
  coverage?: Coverage;
  /** Present when some unchanged site drifted in ignored fields only, by domain: shown, never changed. */
  ignoredOnly?: IgnoredOnlySite[];
  /** Present when the plan was classified against a git baseline. */
  baseline?: BaselineRef;
}

/** Which git revision the plan was classified against. */
export interface BaselineRef {
  /** As given (`--baseline`, SITESYNC_BASELINE) or the default tag. */
  ref: string;
  /** The full commit id REF resolved to. */
  commit: string;
  /** `default`: the tag --mark-applied maintains, used without being asked for. */
  source: 'option' | 'default';
  /** The remote the commit was fetched from, when the clone lacked it (a shallow CI clone). */
  fetchedFrom?: string;
  /**
   * The `--baseline` that was given, when the applied tag was used instead:
   * REF was ahead of the applied commit (merged work not applied yet), which
   * is pending, not drift (docs/plan-format.md, "Baseline").
   */
  insteadOf?: { ref: string; commit: string };
  /** The configuration did not exist at REF (the first pull request): every change is pending. */
  noConfiguration?: boolean;
}

/** The configuration as it was at the baseline: what the classification compares with. */
export interface Baseline {
  ref: BaselineRef;
  websites: readonly DesiredWebsite[];
  policy: ConfigPolicy;
}

/** What the planner needs beyond desired and live state: the configuration's policy plus command-line choices. */
export interface PlanPolicy extends ConfigPolicy {
  /** --only / --skip globs. */
  only: string[];
  skip: string[];
  /** --sync-write-only: re-send configured write-only values (every one, unless narrowed below). */
  syncWriteOnly: boolean;
  /** `--sync-write-only FIELD`: only these fields; absent: every write-only field. */
  syncWriteOnlyFields?: FieldName[];
  /** `--sync-write-only DOMAIN|GLOB`: only these sites (still within --only/--skip); absent: every site. */
  syncWriteOnlySites?: string[];
  /** Today, YYYY-MM-DD in UTC: an ignore_changes rule whose `until` is before it has expired. Absent: none expires. */
  today?: string;
}
