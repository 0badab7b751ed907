/**
 * The apply engine: carries out a plan against the service and accounts for
 * every change. Deletes first (a freed domain can be re-used), then creates,
 * then updates; at most `parallelism` changes in flight, inside the client's
 * rate limiter. A failure does not stop independent changes. An abort (Ctrl-C)
 * reaches every write still waiting (for the rate limiter, a retry): a change
 * whose request had not been sent ends skipped; one in flight finishes. Afterwards the touched
 * sites are read back and compared with the configuration (verify.ts).
 * Knows nothing of terminals or files: progress and the journal are callbacks.
 */
import type { Cancellable, WebsitesApi, WebsiteUpdate } from '../api/types.js';
import { type ApplyResult, type ChangeResult, countOutcomes } from '../model/apply-result.js';
import { SitesyncError } from '../model/errors.js';
import type { Change, CreateChange, FieldChange, Plan, UpdateChange } from '../model/plan.js';
import { eachBounded } from '../model/pool.js';
import type { DesiredWebsite, LiveWebsite, SettingName, WebsiteSettings } from '../model/website.js';
import { describeFailure } from './failure.js';
import type { Journal } from './journal.js';
import { verifyApplied } from './verify.js';

export const DEFAULT_PARALLELISM = 4;

export interface ProgressEvent {
  result: ChangeResult;
  done: number;
  total: number;
}

export interface ApplyOptions {
  parallelism?: number;
  /** Aborted on Ctrl-C: nothing new starts, in-flight requests finish. */
  signal?: AbortSignal;
  journal?: Journal;
  onProgress?: (event: ProgressEvent) => void;
  /** Changes not to attempt, by domain, with the reason (e.g. a saved plan's change already applied). */
  skip?: ReadonlyMap<string, string>;
  /** How many sites the account has after the apply (chooses listing vs per-site reads). */
  liveCount?: number;
  /** Skip the read-back (benchmarks that measure the writes alone). */
  verify?: boolean;
}

const PHASES: readonly Change['action'][] = ['delete', 'create', 'update'];

export async function applyPlan(
  plan: Plan,
  desired: ReadonlyMap<string, DesiredWebsite>,
  api: WebsitesApi,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const started = Date.now();
  const requestsBefore = api.stats.requests;
  const { journal, signal } = options;
  const results = new Map<Change, ChangeResult>();
  const total = plan.changes.length;
  const finish = (change: Change, result: ChangeResult): void => {
    results.set(change, result);
    const event = result.outcome === 'applied' ? 'succeeded' : result.outcome;
    journal?.record({ event, action: change.action, domain: change.domain, id: result.id, ...reasonOf(result) });
    options.onProgress?.({ result, done: results.size, total });
  };

  for (const change of plan.changes) {
    journal?.record({
      event: 'planned',
      action: change.action,
      domain: change.domain,
      id: change.id,
      fields: fieldsOf(change),
    });
  }

  // What the service answered to each of our writes, by id: the read-back tells our writes from another writer's.
  const written = new Map<number, LiveWebsite>();
  api = recordingWrites(api, written);
  for (const phase of PHASES) {
    const changes = plan.changes.filter((change) => change.action === phase);
    await eachBounded(
      changes,
      options.parallelism ?? DEFAULT_PARALLELISM,
      async (change) => {
        const skipReason = options.skip?.get(change.domain);
        if (skipReason !== undefined) return finish(change, skipped(change, skipReason));
        journal?.record({ event: 'started', action: change.action, domain: change.domain, id: change.id });
        finish(change, await attemptUnlessInterrupted(change, desired, api, signal));
      },
      () => signal?.aborted === true,
    );
  }

  const interrupted = signal?.aborted === true;
  for (const change of plan.changes) {
    if (!results.has(change)) finish(change, notStarted(change));
  }
  const changes = plan.changes.map((change) => results.get(change) as ChangeResult);
  const verification =
    options.verify === false || interrupted
      ? { status: 'not_needed' as const, divergences: [] }
      : await verifyApplied(plan, changes, desired, api, options.liveCount, written);
  return {
    changes,
    counts: countOutcomes(changes),
    interrupted,
    verification,
    requests: api.stats.requests - requestsBefore,
    elapsedMs: Date.now() - started,
  };
}

const INTERRUPTED = 'not started: the run was interrupted';

/**
 * Runs one change with its own signal, aborted by the run's signal only while
 * none of its requests has been sent: a write waiting for the rate limiter stops
 * at once and is skipped, a write on the wire is let finish (aborting it would
 * leave its outcome unknown).
 */
async function attemptUnlessInterrupted(
  change: Change,
  desired: ReadonlyMap<string, DesiredWebsite>,
  api: WebsitesApi,
  signal: AbortSignal | undefined,
): Promise<ChangeResult> {
  if (signal === undefined) return attempt(change, desired, api, {});
  let sent = false;
  const gate = new AbortController();
  const stop = () => {
    if (!sent) gate.abort(signal.reason);
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    if (signal.aborted) return notStarted(change);
    const result = await attempt(change, desired, api, {
      signal: gate.signal,
      onSend: () => {
        sent = true;
      },
    });
    return !sent && signal.aborted ? notStarted(change) : result;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

async function attempt(
  change: Change,
  desired: ReadonlyMap<string, DesiredWebsite>,
  api: WebsitesApi,
  calls: Cancellable,
): Promise<ChangeResult> {
  const base = { action: change.action, domain: change.domain, id: change.id };
  try {
    switch (change.action) {
      case 'delete': {
        const existed = await api.deleteWebsite(change.id, calls);
        return existed ? { ...base, outcome: 'applied' } : { ...base, outcome: 'applied', reason: 'already gone' };
      }
      case 'create': {
        const live: LiveWebsite = await api.createWebsite(desiredForCreate(change, desired), calls);
        return { ...base, id: live.id, outcome: 'applied' };
      }
      case 'update':
        await api.updateWebsite(change.id, updateFor(change, desired), calls);
        return { ...base, outcome: 'applied' };
    }
  } catch (error) {
    return { ...base, outcome: 'failed', ...describeFailure(change.action, error, sentSettings(change, desired)) };
  }
}

/** What a change sends (for a failure's message); nothing for a delete. */
function sentSettings(change: Change, desired: ReadonlyMap<string, DesiredWebsite>): Partial<WebsiteSettings> {
  if (change.action === 'delete') return {};
  if (change.action === 'create') return desiredForCreate(change, desired).settings;
  return change.after;
}

/** The configured website (it holds the password); the plan's settings when the configuration lacks it. */
function desiredForCreate(change: CreateChange, desired: ReadonlyMap<string, DesiredWebsite>): DesiredWebsite {
  const website = desired.get(change.domain);
  if (website) return { ...website, settings: change.after };
  return { domain: change.domain, settings: change.after, ignoreChanges: [] };
}

/** Only the fields that change; the password from the configuration when the plan sends one. */
function updateFor(change: UpdateChange, desired: ReadonlyMap<string, DesiredWebsite>): WebsiteUpdate {
  const settings: Partial<WebsiteSettings> = {};
  const update: WebsiteUpdate = { settings };
  for (const field of change.fields) {
    if (field.field === 'password') {
      const password = desired.get(change.domain)?.password;
      if (!password) throw new SitesyncError('config', 'the plan sends a password, but the configuration has none');
      update.password = password;
    } else {
      copySetting(settings, change.after, field.field);
    }
  }
  return update;
}

function copySetting<K extends SettingName>(to: Partial<WebsiteSettings>, from: WebsiteSettings, field: K): void {
  to[field] = from[field];
}

function skipped(change: Change, reason: string): ChangeResult {
  return { action: change.action, domain: change.domain, id: change.id, outcome: 'skipped', reason };
}

/** Skipped because the run was interrupted before the change's first request (code `interrupted`). */
function notStarted(change: Change): ChangeResult {
  return { ...skipped(change, INTERRUPTED), code: 'interrupted' };
}

function reasonOf(result: ChangeResult): { reason?: string; code?: string } {
  return {
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    ...(result.code === undefined ? {} : { code: result.code }),
  };
}

function fieldsOf(change: Change): FieldChange[] | undefined {
  return change.action === 'delete' ? undefined : change.fields;
}

/** The same port (a proxy: the client keeps private fields), remembering the record each create or update returned. */
function recordingWrites(api: WebsitesApi, written: Map<number, LiveWebsite>): WebsitesApi {
  const record = async (answer: Promise<LiveWebsite>): Promise<LiveWebsite> => {
    const live = await answer;
    written.set(live.id, live);
    return live;
  };
  return new Proxy(api, {
    get(target, property) {
      if (property === 'createWebsite') {
        return (...args: Parameters<WebsitesApi['createWebsite']>) => record(target.createWebsite(...args));
      }
      if (property === 'updateWebsite') {
        return (...args: Parameters<WebsitesApi['updateWebsite']>) => record(target.updateWebsite(...args));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
