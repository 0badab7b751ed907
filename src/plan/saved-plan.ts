/**
 * The saved plan file (`plan --out plan.json`, read by `apply plan.json`):
 * everything apply needs to detect staleness (the target URL, a digest of the
 * resolved configuration, which API key's account it was made in, a
 * fingerprint of every touched site's live state) and never a secret. Pure
 * (de)serialisation with validation.
 */
import { canonicalJson } from '../model/canonical-json.js';
import { SitesyncError } from '../model/errors.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import { jsonDocument } from '../model/text.js';
import type { LiveWebsite } from '../model/website.js';

export const SAVED_PLAN_KIND = 'sitesync-plan';
/** 2: the file records the live state it was planned against (`live`), so apply can plan again and compare. */
export const SAVED_PLAN_VERSION = 2;

/** What the planner saw of one touched site; `id` and `fingerprint` are null for a create (the domain was absent). */
export interface SiteFingerprint {
  domain: string;
  id: number | null;
  fingerprint: string | null;
}

/**
 * One live site as the planner saw it, recorded in the file: id, domain, the
 * readable settings, whether a password is set (absent when the server does
 * not say), when it was created. Never a password: the service returns none.
 */
export type RecordedLiveSite = Pick<LiveWebsite, 'id' | 'domain' | 'settings' | 'hasPassword' | 'createdAt'>;

export interface SavedPlan {
  formatVersion: typeof SAVED_PLAN_VERSION;
  kind: 'sitesync-plan';
  /** The service's base URL, without credentials. */
  target: string;
  /** `DesiredState.digest`: the resolved configuration, secrets excluded. */
  configDigest: string;
  /** `Connection.keyId` (api/connection.ts): which account (key) the plan was made in; not a secret. */
  keyId: string;
  /** The digest of the configuration's policies (plan/policies), when it declares any: apply refuses a plan made under others. */
  policiesDigest?: string;
  policy: PlanPolicy;
  plan: Plan;
  /** One per change, in plan order. */
  fingerprints: SiteFingerprint[];
  /** Every live site the plan was made against, by id: apply plans again from these and the configuration (rederive.ts). */
  live: RecordedLiveSite[];
  /**
   * The `-f` files the plan was made from, as given (relative to where `plan`
   * ran); absent for the default websites.yaml or standard input. `apply FILE`
   * without `-f` loads these, as a Terraform saved plan keeps its configuration.
   */
  files?: string[];
  /** HMAC of everything above, keyed from the API key (api/connection.ts `planSignatureOf`); written last. */
  signature?: string;
}

/**
 * Signs with the connection's `sign`: the MAC covers the file's every other
 * field in canonical form (keys sorted, no whitespace), so a file re-serialised
 * with sorted keys or other indentation still verifies and a changed value does not.
 */
export function signSavedPlan(saved: SavedPlan, sign: (text: string) => string): SavedPlan {
  const { signature: _old, ...unsigned } = saved;
  return { ...unsigned, signature: sign(canonicalJson(unsigned)) };
}

/** Whether the file holds exactly the data `plan --out` wrote with this key, however it is formatted. */
export function signatureVerifies(saved: SavedPlan, sign: (text: string) => string): boolean {
  const { signature, ...unsigned } = saved;
  if (typeof signature !== 'string') return false;
  // Files written before issue 23 were signed over their text as written: still accepted as written.
  return signature === sign(canonicalJson(unsigned)) || signature === sign(`${JSON.stringify(unsigned, null, 2)}\n`);
}

export function createSavedPlan(input: {
  target: string;
  configDigest: string;
  keyId: string;
  policiesDigest?: string | undefined;
  policy: PlanPolicy;
  plan: Plan;
  live: readonly LiveWebsite[];
  files?: readonly string[] | undefined;
}): SavedPlan {
  const files = recordedFiles(input.files);
  return {
    formatVersion: SAVED_PLAN_VERSION,
    kind: SAVED_PLAN_KIND,
    target: input.target,
    configDigest: input.configDigest,
    keyId: input.keyId,
    ...(input.policiesDigest !== undefined && { policiesDigest: input.policiesDigest }),
    policy: input.policy,
    plan: input.plan,
    fingerprints: fingerprintsOf(input.plan),
    live: input.live.map(recordedSite).sort((a, b) => a.id - b.id),
    ...(files && { files }),
  };
}

/** The files worth recording: none for the default, nor when one is standard input (apply cannot read it again). */
function recordedFiles(files: readonly string[] | undefined): string[] | undefined {
  if (files === undefined || files.length === 0) return undefined;
  return files.some((file) => file === '-' || file === '/dev/stdin') ? undefined : [...files];
}

/** Only what the planner reads: no raw record, no update time (a no-op touch must not change the file). */
function recordedSite(site: LiveWebsite): RecordedLiveSite {
  // An unknown password flag is undefined, which JSON leaves out: parsed back, it is undefined again.
  const recorded: RecordedLiveSite = {
    id: site.id,
    domain: site.domain,
    settings: site.settings,
    hasPassword: site.hasPassword,
  };
  if (site.createdAt !== undefined) recorded.createdAt = site.createdAt;
  return recorded;
}

/** What the planner saw of each touched site, in plan order: the input of a freshness check. */
export function fingerprintsOf(plan: Plan): SiteFingerprint[] {
  return plan.changes.map((change) =>
    change.action === 'create'
      ? { domain: change.domain, id: null, fingerprint: null }
      : { domain: change.domain, id: change.id, fingerprint: change.fingerprint },
  );
}

/** The sites the account held when the plan was made. */
export function liveCountOf(plan: Plan): number {
  const { summary } = plan;
  const filtered = plan.notes
    .filter((note) => note.kind === 'filtered')
    .reduce((n, note) => n + note.domains.length, 0);
  return summary.update + summary.delete + summary.unchanged + summary.outOfScope + summary.kept + filtered;
}

/** Where apply runs: compared with where the saved plan was made. */
export interface ApplyTarget {
  /** The service's base URL. */
  target: string;
  /** `Connection.keyId` of the key apply uses. */
  keyId: string;
  /** `DesiredState.digest` of the configuration apply loaded. */
  configDigest: string;
  /** The digest of its policies; undefined without policies. */
  policiesDigest?: string | undefined;
}

/**
 * Admission of a saved plan: why it may not be applied here (another service,
 * another key so possibly another account, another configuration), or
 * undefined. Whether the live sites moved is the freshness check's, later.
 */
export function admissionRefusal(saved: SavedPlan, here: ApplyTarget, planFile: string): string | undefined {
  if (here.target !== saved.target) return `${planFile} was made for ${saved.target}, not ${here.target}`;
  if (here.keyId !== saved.keyId) {
    return `${planFile} was made with another API key (key id ${saved.keyId}), so possibly for another account: apply it with the key it was made with, or run plan again with this key and review it`;
  }
  if (here.configDigest !== saved.configDigest) {
    return `the configuration changed since ${planFile} was made (or other -f files were given): run plan again and review it`;
  }
  if (here.policiesDigest !== saved.policiesDigest) {
    return `the policies changed since ${planFile} was made (it was checked against other rules): run plan again and review it`;
  }
  return undefined;
}

/**
 * Stable text: two-space JSON and a final newline, invisible characters of
 * live values escaped (jsonDocument). Secret objects would print as a
 * placeholder; a plan holds none.
 */
export function serializeSavedPlan(saved: SavedPlan): string {
  return jsonDocument(saved);
}

/** Parses and validates a saved plan; `file` names it in messages. */
export function parseSavedPlan(text: string, file: string): SavedPlan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SitesyncError('usage', `${file}: not a sitesync plan file (invalid JSON: ${(error as Error).message})`);
  }
  const problem = savedPlanProblem(data);
  if (problem !== undefined) throw new SitesyncError('usage', `${file}: not a valid sitesync plan file: ${problem}`);
  return data as SavedPlan;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((entry) => typeof entry === 'string');

/** The first thing wrong with `data` as a saved plan, or undefined. */
export function savedPlanProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return 'expected a JSON object';
  if (data.kind !== SAVED_PLAN_KIND) return `kind must be "${SAVED_PLAN_KIND}"`;
  if (typeof data.formatVersion === 'number' && data.formatVersion < SAVED_PLAN_VERSION) {
    return `formatVersion ${data.formatVersion} was written by an older sitesync, which did not record the live state apply plans again from: make the plan again with this sitesync and review it`;
  }
  if (data.formatVersion !== SAVED_PLAN_VERSION) {
    return `formatVersion ${JSON.stringify(data.formatVersion)} is not supported (this sitesync reads ${SAVED_PLAN_VERSION})`;
  }
  if (typeof data.target !== 'string' || data.target === '') return 'target must be a URL';
  if (typeof data.configDigest !== 'string') return 'configDigest must be a string';
  if (data.policiesDigest !== undefined && typeof data.policiesDigest !== 'string')
    return 'policiesDigest must be a string';
  if (data.files !== undefined && (!isStringArray(data.files) || data.files.length === 0))
    return 'files must be a non-empty list of file names';
  if (typeof data.keyId !== 'string' || !/^[0-9a-f]{16}$/.test(data.keyId)) {
    return 'keyId must be 16 hex digits (a plan made by an older sitesync has none: make the plan again)';
  }
  const policyProblem = policyProblemOf(data.policy);
  if (policyProblem !== undefined) return `policy: ${policyProblem}`;
  const plan = data.plan;
  if (!isRecord(plan) || !Array.isArray(plan.changes) || !Array.isArray(plan.notes) || !Array.isArray(plan.safety)) {
    return 'plan must have changes, notes and safety arrays';
  }
  if (!isRecord(plan.summary)) return 'plan.summary must be an object';
  for (const [index, change] of plan.changes.entries()) {
    const problem = changeProblem(change);
    if (problem !== undefined) return `plan.changes[${index}]: ${problem}`;
  }
  if (!Array.isArray(data.fingerprints) || data.fingerprints.length !== plan.changes.length) {
    return 'fingerprints must list one entry per change';
  }
  for (const [index, entry] of data.fingerprints.entries()) {
    if (!isRecord(entry) || typeof entry.domain !== 'string') return `fingerprints[${index}]: domain missing`;
    if (entry.id !== null && typeof entry.id !== 'number') return `fingerprints[${index}]: id must be a number or null`;
    if (entry.fingerprint !== null && typeof entry.fingerprint !== 'string') {
      return `fingerprints[${index}]: fingerprint must be a string or null`;
    }
  }
  if (!Array.isArray(data.live)) return 'live must list the live sites the plan was made against';
  for (const [index, site] of data.live.entries()) {
    const problem = liveSiteProblem(site);
    if (problem !== undefined) return `live[${index}]: ${problem}`;
  }
  return undefined;
}

function liveSiteProblem(site: unknown): string | undefined {
  if (!isRecord(site) || typeof site.id !== 'number' || typeof site.domain !== 'string') {
    return 'a live site has a numeric id and a domain';
  }
  if (!isRecord(site.settings)) return 'settings must be an object';
  if (site.hasPassword !== undefined && typeof site.hasPassword !== 'boolean') return 'hasPassword must be a boolean';
  if (site.createdAt !== undefined && typeof site.createdAt !== 'string') return 'createdAt must be a string';
  return undefined;
}

function policyProblemOf(policy: unknown): string | undefined {
  if (!isRecord(policy)) return 'expected an object';
  if (typeof policy.prune !== 'boolean' || typeof policy.syncWriteOnly !== 'boolean') {
    return 'prune and syncWriteOnly must be booleans';
  }
  const manage = policy.manage;
  if (!isRecord(manage) || !isStringArray(manage.include) || !isStringArray(manage.exclude)) {
    return 'manage must have include and exclude lists';
  }
  if (!isStringArray(policy.protect) || !isStringArray(policy.only) || !isStringArray(policy.skip)) {
    return 'protect, only and skip must be lists of globs';
  }
  for (const key of ['syncWriteOnlyFields', 'syncWriteOnlySites'] as const) {
    if (policy[key] !== undefined && !isStringArray(policy[key])) return `${key} must be a list`;
  }
  // The day re-derivation uses to decide which ignore_changes rules had expired.
  if (policy.today !== undefined && (typeof policy.today !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(policy.today))) {
    return 'today must be a day, YYYY-MM-DD';
  }
  if (policy.unlistedIsDrift !== undefined && typeof policy.unlistedIsDrift !== 'boolean') {
    return 'unlistedIsDrift must be a boolean';
  }
  const limits = policy.limits;
  if (!isRecord(limits) || typeof limits.maxDeletes !== 'number' || typeof limits.maxChangePercent !== 'number') {
    return 'limits must have maxDeletes and maxChangePercent';
  }
  return undefined;
}

function changeProblem(change: unknown): string | undefined {
  if (!isRecord(change) || typeof change.domain !== 'string') return 'domain missing';
  if (!Array.isArray(change.fields ?? [])) return 'fields must be a list';
  switch (change.action) {
    case 'create':
      return change.id === null && isRecord(change.after) ? undefined : 'a create has id null and after settings';
    case 'update':
      return typeof change.id === 'number' && isRecord(change.after) && typeof change.fingerprint === 'string'
        ? undefined
        : 'an update has a numeric id, after settings and a fingerprint';
    case 'delete':
      return typeof change.id === 'number' && typeof change.fingerprint === 'string'
        ? undefined
        : 'a delete has a numeric id and a fingerprint';
    default:
      return `unknown action ${JSON.stringify(change.action)}`;
  }
}
