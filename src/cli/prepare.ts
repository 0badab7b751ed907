/**
 * The steps `plan`, `apply` and `export` share before they differ: load the
 * desired state (every problem printed before failing), resolve the
 * connection once (URL, key, key id), open a client, list the live sites, and
 * plan. Commands import these steps, never each other.
 */
import type { Connection, WebsitesApi } from '../api/index.js';
import { missingMessage, type SecretMode } from '../config/env.js';
import { formatProblem, invalidConfigMessage, loadConfig } from '../config/index.js';
import type { DesiredState } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import { UnresolvedSecret } from '../model/secret.js';
import type { DesiredWebsite, LiveWebsite } from '../model/website.js';
import { plan, policyFromConfig, type WriteOnlySync, writeOnlyResend } from '../plan/index.js';
import { type Io, todayOf } from './io.js';
import { type ConnectionOptions, connectionOf, log, openClient, type SharedOptions } from './shared-options.js';

/** Loads and validates the configuration; every problem is printed before failing. */
export async function loadDesiredState(
  shared: Pick<SharedOptions, 'files'>,
  io: Io,
  secrets: SecretMode = 'resolve',
): Promise<DesiredState> {
  const loaded = await loadConfig({ files: shared.files, cwd: io.cwd, env: io.env, secrets, signal: io.signal });
  for (const warning of loaded.warnings) io.stderr.write(`${formatProblem(warning)}\n`);
  if (loaded.state === undefined) {
    for (const error of loaded.errors) io.stderr.write(`${formatProblem(error)}\n`);
    throw new SitesyncError('config', invalidConfigMessage(loaded.errors));
  }
  return loaded.state;
}

export interface Session {
  state: DesiredState;
  /** Resolved once per command: the client's key and a saved plan's key id come from it. */
  connection: Connection;
  /** The caller closes it. */
  api: WebsitesApi;
}

/**
 * The configuration, then a client for it (`concurrency`: sockets, one per
 * change in flight). `secrets`: `check` where no password is sent (plan).
 */
export async function openSession(
  shared: SharedOptions,
  io: Io,
  concurrency?: number,
  secrets: SecretMode = 'resolve',
): Promise<Session> {
  const state = await loadDesiredState(shared, io, secrets);
  const connection = connectionOf(shared, io, state.apiUrl);
  return { state, connection, api: openClient(shared, io, connection, concurrency) };
}

/** Every live site, with a debug line of what the listing cost. */
export async function listLive(api: WebsitesApi, options: ConnectionOptions, io: Io): Promise<LiveWebsite[]> {
  const live = await api.listWebsites(io.signal ? { signal: io.signal } : {});
  const { requests, retries, throttled } = api.stats;
  log(
    options,
    io,
    'debug',
    `listed ${live.length} websites in ${requests} requests (${retries} retries, ${throttled} throttled)`,
  );
  return live;
}

export interface Planned {
  live: LiveWebsite[];
  policy: PlanPolicy;
  plan: Plan;
}

/** Lists the live sites and plans the session's configuration against them with the command line's choices. */
export async function planSession(
  session: Session,
  shared: SharedOptions,
  io: Io,
  syncWriteOnly: WriteOnlySync | false,
): Promise<Planned> {
  // Before any request: only configured sites can be re-sent.
  if (syncWriteOnly !== false) refuseUnmatchedSyncSites(syncWriteOnly.sites, session.state.websites);
  const live = await listLive(session.api, shared, io);
  refuseUnmatchedOnly(shared.only, session.state.websites, live);
  const policy = policyFromConfig(session.state.policy, {
    only: shared.only,
    skip: shared.skip,
    syncWriteOnly,
    today: todayOf(io),
  });
  return { live, policy, plan: plan(session.state.websites, live, policy) };
}

/** An --only that matches no configured or live website is a typo: "No changes" would read as "in sync". */
function refuseUnmatchedOnly(
  only: readonly string[],
  desired: readonly DesiredWebsite[],
  live: readonly LiveWebsite[],
) {
  const domains = [...desired.map((site) => site.domain), ...live.map((site) => site.domain)];
  const unmatched = only.filter((glob) => !domains.some((domain) => matchesGlob(domain, glob)));
  if (unmatched.length === 0) return;
  throw new SitesyncError(
    'usage',
    `--only ${unmatched.join(', ')} matches no website in the configuration or the account`,
  );
}

/** A --sync-write-only domain or glob that names no configured website is a typo: only listed sites are re-sent. */
function refuseUnmatchedSyncSites(sites: readonly string[], desired: readonly DesiredWebsite[]): void {
  const unmatched = sites.filter((glob) => !desired.some((site) => matchesGlob(site.domain, glob)));
  if (unmatched.length === 0) return;
  throw new SitesyncError('usage', `--sync-write-only ${unmatched.join(', ')} matches no website in the configuration`);
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
  io: Io,
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
    io.stderr.write(`${where}${site.domain}: the password ${missingMessage([variable], io.env)}\n`);
  }
  throw new SitesyncError(
    'config',
    `--sync-write-only sends the password of ${missing.length === 1 ? 'this website' : `these ${missing.length} websites`}: set the variable (only the passwords a plan sends are needed)`,
  );
}
