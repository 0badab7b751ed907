/**
 * The steps `plan`, `apply` and `export` share before they differ: load the
 * desired state (every problem an event before failing), resolve the
 * connection once (URL, key, key id), open a client, list the live sites, and
 * plan. The engine's plan, apply and export start here.
 */
import type { Connection, WebsitesApi } from '../api/index.js';
import { missingMessage, type SecretMode } from '../config/env.js';
import { formatProblem, invalidConfigMessage, loadConfig, omittedLine } from '../config/index.js';
import { forTarget } from '../config/targets.js';
import type { DesiredState } from '../model/desired-state.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import { frozenCopy } from '../model/frozen.js';
import { matchesGlob } from '../model/glob.js';
import type { Baseline, Plan, PlanPolicy } from '../model/plan.js';
import { UnresolvedSecret } from '../model/secret.js';
import type { DesiredWebsite, LiveWebsite } from '../model/website.js';
import {
  MIN_SITES_FOR_PERCENT,
  plan,
  policyFromConfig,
  scopeOf,
  uncreatableDomains,
  type WriteOnlySync,
  writeOnlyResend,
} from '../plan/index.js';
import { problemJson } from '../render/validate.js';
import { connectionOf, openClient } from './connect.js';
import { type EngineContext, todayOf } from './context.js';
import type { EarlyListing } from './early-listing.js';
import { withPolicies, withPolicyProblems } from './policies.js';
import { namesOf, type OptionNames, type RunRequest } from './request.js';
import { refuseOverAllowance } from './website-allowance.js';

/** Loads and validates the configuration; every problem is a `problem` event before failing. */
export async function loadDesiredState(
  shared: Pick<RunRequest, 'files' | 'target'>,
  context: EngineContext,
  secrets: SecretMode = 'resolve',
  /** Given the files' texts once read, before parsing (engine/early-listing.ts). */
  onRead?: (texts: readonly string[]) => void,
): Promise<DesiredState> {
  const { cwd, env, signal } = context;
  const loaded = withPolicyProblems(
    await loadConfig({ files: shared.files, cwd, env, secrets, signal, ...(onRead && { onRead }) }),
  );
  // A configuration declaring targets is loaded again for each target, whose run reports its warnings.
  const quiet = loaded.state?.targets !== undefined && shared.target === undefined;
  const { omitted } = loaded;
  const notice = (message: string) => context.events({ type: 'notice', message });
  if (!quiet) for (const problem of loaded.warnings) context.events({ type: 'problem', problem });
  if (!quiet && omitted.warnings > 0) notice(omittedLine(omitted.warnings, 'warning'));
  if (loaded.state === undefined) {
    for (const problem of loaded.errors) context.events({ type: 'problem', problem });
    if (omitted.errors > 0) notice(omittedLine(omitted.errors, 'error'));
    // The problems ride along for the JSON error document (render/error-document.ts).
    const problems = loaded.errors.map((problem) => problemJson({ ...problem, text: formatProblem(problem) }));
    throw new SitesyncError('config', invalidConfigMessage(loaded.errors, omitted.errors), { problems });
  }
  return shared.target === undefined ? loaded.state : forTarget(loaded.state, shared.target);
}

export interface Session {
  state: DesiredState;
  /** Resolved once per command: the client's key and a saved plan's key id come from it. */
  connection: Connection;
  /** The caller closes it. */
  api: WebsitesApi;
  /** The full listing started before the configuration was read (engine/early-listing.ts), if any. */
  listing?: () => Promise<LiveWebsite[]>;
}

/**
 * Gives up the secrets a session holds (its websites' passwords, its API
 * key): a process that loads its configuration again (`watch`, each cycle)
 * calls it once nothing will print the old ones, so the redaction registry
 * holds what is in use (model/secret.ts).
 */
export function releaseSecrets(session: Pick<Session, 'state' | 'connection'>): void {
  releasePasswords(session.state);
  session.connection.apiKey.release();
}

/** The passwords a desired state holds (its key stays held). */
export function releasePasswords(state: { websites: readonly { password?: { release(): void } | undefined }[] }): void {
  for (const site of state.websites) site.password?.release();
}

/**
 * The configuration, then a client for it (`concurrency`: sockets, one per
 * change in flight). `secrets`: `check` where no password is sent (plan).
 */
export async function openSession(
  shared: RunRequest,
  context: EngineContext,
  concurrency?: number,
  secrets: SecretMode = 'resolve',
  /** Already loaded with the same files and `secrets` (the check for `targets:` loads it first). */
  loaded?: DesiredState,
  /** Started with the same request before `loaded` was read: its connection and client are the session's. */
  early?: EarlyListing,
): Promise<Session> {
  const state = loaded ?? (await loadDesiredState(shared, context, secrets));
  if (early !== undefined) return { state, connection: early.connection, api: early.api, listing: early.live };
  const connection = connectionOf(shared, context, state.apiUrl);
  return { state, connection, api: openClient(shared, context, connection, concurrency) };
}

/**
 * The live sites a plan needs, and an event saying what the listing cost:
 * every site of the account, or, given `domains` (see `targetedDomains`),
 * only the sites with those exact domains, one `search` each. One function
 * per target, so a fan-out over several installations calls it once for each.
 */
export async function listLive(
  api: WebsitesApi,
  context: EngineContext,
  domains?: readonly string[],
  /** A full listing already under way on `api` (engine/early-listing.ts): awaited, not sent again. */
  started?: () => Promise<LiveWebsite[]>,
): Promise<LiveWebsite[]> {
  const before = started === undefined ? api.stats.requests : 0;
  const calls = context.signal ? { signal: context.signal } : {};
  const live =
    started !== undefined && domains === undefined
      ? await started()
      : domains === undefined
        ? await api.listWebsites(calls)
        : await api.listWebsitesNamed(domains, calls);
  const { retries, throttled, requests } = api.stats;
  const cost = { count: live.length, requests: requests - before, retries, throttled };
  context.events({ type: 'listed', ...cost, ...(domains !== undefined && { searched: domains.length }) });
  return live;
}

/**
 * The exact domains to search for instead of listing the whole account, or
 * undefined for a full listing. Only when every --only names one domain (no
 * glob), fewer than MIN_SITES_FOR_PERCENT of them (so the share-changed rule,
 * which counts the sites listed, says the same as with a full listing), and
 * prune cannot delete any of them (prune off, or each named domain outside
 * `manage` or protected). The plan is then the same as with a full listing,
 * except the counts of sites it does not name (unchanged, out of scope).
 */
export function targetedDomains(policy: PlanPolicy): string[] | undefined {
  const { only } = policy;
  if (only.length === 0 || only.length >= MIN_SITES_FOR_PERCENT) return undefined;
  // Unlisted sites are drift only if the whole account is listed.
  if (policy.unlistedIsDrift === true) return undefined;
  if (only.some((glob) => /[*?]/.test(glob))) return undefined;
  const scope = scopeOf(policy);
  const prunable = (domain: string) => policy.prune && scope.inScope(domain) && !scope.isProtected(domain);
  const domains = only.map((glob) => glob.toLowerCase());
  return domains.some(prunable) ? undefined : domains;
}

export interface Planned {
  live: LiveWebsite[];
  /**
   * How many sites the account holds, for choosing a listing or per-site reads
   * later: `live.length`, or infinite (unknown: read per site) after a targeted listing.
   */
  liveCount: number;
  policy: PlanPolicy;
  plan: Plan;
}

/** The command line's planning choices beyond the shared options. */
export interface PlanChoices {
  /** --sync-write-only: which write-only values to re-send (fields, sites), or false without the flag. */
  syncWriteOnly: WriteOnlySync | false;
  unlistedIsDrift?: boolean;
  /** The configuration at the git baseline (engine/baseline.ts), if any. */
  baseline?: Baseline | undefined;
}

/** Lists the live sites and plans the session's configuration against them with the command line's choices. */
export async function planSession(
  session: Session,
  shared: RunRequest,
  context: EngineContext,
  choices: PlanChoices,
): Promise<Planned> {
  const { syncWriteOnly } = choices;
  const configured = [...session.state.websites.map((site) => site.domain), ...(shared.spanDomains ?? [])];
  // Before any request: only configured sites can be re-sent.
  if (syncWriteOnly !== false) refuseUnmatchedSyncSites(syncWriteOnly.sites, configured, namesOf(shared));
  const policy = policyFromConfig(session.state.policy, {
    only: shared.only,
    skip: shared.skip,
    syncWriteOnly,
    unlistedIsDrift: choices.unlistedIsDrift === true,
    today: todayOf(context),
  });
  const domains = targetedDomains(policy);
  const live = await listLive(session.api, context, domains, session.listing);
  const unmatched = unmatchedOnly(shared.only, configured, live);
  if (shared.onlyAcrossTargets !== undefined) await shared.onlyAcrossTargets(unmatched);
  else if (unmatched.length > 0) {
    throw new SitesyncError(
      'usage',
      `${namesOf(shared).only} ${unmatched.join(', ')} matches no website in the configuration or the account`,
    );
  }
  const liveCount = domains === undefined ? live.length : Number.POSITIVE_INFINITY;
  const result = withPolicies(
    plan(session.state.websites, live, policy, choices.baseline),
    session.state,
    policy,
    shared.target?.name,
  );
  refuseUncreatable(result, session.state.websites);
  await refuseOverAllowance(
    session.api,
    result,
    domains === undefined ? live.length : undefined,
    context,
    shared.logLevel,
  );
  // Only the named sites were read: the account was not counted, so no coverage rather than a wrong one.
  if (domains !== undefined) delete result.coverage;
  // Handed to callers (events, confirm, outcomes) and then written: frozen, so what was gated is what is written.
  return { live, liveCount, policy, plan: frozenCopy(result) };
}

/**
 * A domain validate accepted only because the service may hold it (a warning)
 * that no live site has: the plan would create it, and sitesync never sends
 * a domain the service's rule refuses. Refused before anything is written.
 */
function refuseUncreatable(result: Plan, desired: readonly DesiredWebsite[]): void {
  const domains = uncreatableDomains(result);
  if (domains.length === 0) return;
  const where = (domain: string) => {
    const source = desired.find((site) => site.domain === domain)?.source;
    return source ? `${source.file}:${source.line}:${source.column}: ` : '';
  };
  const lines = domains.map((domain) => `${where(domain)}${JSON.stringify(domain)}`);
  throw new SitesyncError(
    'config',
    `not a valid domain for a new website, and the service holds no website with it (only an existing one can be managed): ${lines.join(', ')}`,
  );
}

/** An --only that matches no configured or live website is a typo: "No changes" would read as "in sync". */
function unmatchedOnly(only: readonly string[], configured: readonly string[], live: readonly LiveWebsite[]) {
  if (only.length === 0) return []; // no --only: nothing to canonicalise (10,000 live domains cost ~8 ms)
  const domains = [...configured, ...live.map((site) => canonicalDomain(site.domain))];
  return only.filter((glob) => !domains.some((domain) => matchesGlob(domain, glob)));
}

/** A --sync-write-only domain or glob that names no configured website is a typo: only listed sites are re-sent. */
export function refuseUnmatchedSyncSites(
  sites: readonly string[],
  configured: readonly string[],
  names: OptionNames,
  where = '',
): void {
  const unmatched = sites.filter((glob) => !configured.some((domain) => matchesGlob(domain, glob)));
  if (unmatched.length === 0) return;
  throw new SitesyncError(
    'usage',
    `${names.syncWriteOnly} ${unmatched.join(', ')} matches no website in the configuration${where}`,
  );
}

/**
 * `plan` loads passwords without requiring them (a plan holds none). With
 * --sync-write-only selecting passwords, the variables of the sites whose
 * password this plan sends must be set (a missing secret is found before the
 * apply); every other site's may stay unset.
 */
export function requireResentPasswords(
  result: Plan,
  policy: PlanPolicy,
  desired: readonly DesiredWebsite[],
  context: EngineContext,
  names: OptionNames,
): void {
  if (!policy.syncWriteOnly) return;
  const resendOf = writeOnlyResend(policy);
  const sent = new Set(
    result.changes.flatMap((change) =>
      change.action !== 'delete' && change.fields.some((field) => field.field === 'password') ? [change.domain] : [],
    ),
  );
  const missing = desired.filter(
    (site) => sent.has(site.domain) && resendOf(site.domain)('password') && site.password instanceof UnresolvedSecret,
  );
  if (missing.length === 0) return;
  for (const site of missing) {
    const variable = (site.password as UnresolvedSecret).variable;
    const where = site.source ? `${site.source.file}:${site.source.line}:${site.source.column}: ` : '';
    const message = `${where}${site.domain}: the password ${missingMessage(variable, context.env)}`;
    context.events({ type: 'notice', message });
  }
  throw new SitesyncError(
    'config',
    `${names.syncWriteOnly} sends the password of ${missing.length === 1 ? 'this website' : `these ${missing.length} websites`}: set the variable (only the passwords a plan sends are needed)`,
  );
}
