/**
 * The library API (docs/library.md): `plan`, `apply`, `exportSites` and
 * `validate` for one installation, `planTargets` and `applyTargets` for a
 * configuration with `targets:`. Each builds the engine's request from plain
 * options (defaults: websites.yaml in the working directory, SITESYNC_URL and
 * SITESYNC_API_KEY from the environment) and returns the engine's values; the
 * safety gate, admission and freshness checks always run inside `apply`.
 * Progress comes as events (`onEvent`), cancellation through `signal`.
 */
import type { Acknowledgements } from './apply/acknowledge.js';
import type { Journal } from './apply/journal.js';
import { loadConfig } from './config/index.js';
import { type ApplyOutcome, type ApplyRequest, applyTarget } from './engine/apply-target.js';
import { applyTargets as applyEachTarget } from './engine/apply-targets.js';
import type { EngineContext, EngineEvent, LogLevel } from './engine/context.js';
import { loadWhileListing } from './engine/early-listing.js';
import { type Exported, exportSites as exportLive } from './engine/export-sites.js';
import { type PlannedTarget, type PlanRequest, planTarget } from './engine/plan-target.js';
import { planTargets as planEachTarget, type TargetSettled } from './engine/plan-targets.js';
import { loadDesiredState } from './engine/prepare.js';
import { type OptionNames, type RunRequest, runRequest } from './engine/request.js';
import type { ConfigProblem, DesiredState } from './model/desired-state.js';
import { SitesyncError } from './model/errors.js';
import { canonicalGlob, isValidGlob } from './model/glob.js';
import type { Plan } from './model/plan.js';
import { parsePlanFile, parseWriteOnlySync, serializeSavedPlan } from './plan/index.js';

/** Where the service is; absent values come from the environment (and `api.url` in the configuration). */
export interface ConnectOptions {
  /** Over SITESYNC_URL and the configuration's `api.url`. */
  url?: string;
  /** A file holding the API key; default: the SITESYNC_API_KEY variable. */
  apiKeyFile?: string;
  /**
   * Origins (`https://host[:port]`) a URL in the configuration (`api.url`, a
   * target's `url`) may name, besides SITESYNC_URL's and those in
   * SITESYNC_ALLOWED_ORIGINS: a key is never sent where only a file says.
   */
  allowedOrigins?: string[];
  /** Allow a plain http:// URL that is not loopback. */
  insecureHttp?: boolean;
  /** Requests per minute (default 60; 0: no limit). */
  rateLimit?: number;
  /** Seconds for one request, retries included (default: SITESYNC_TIMEOUT, else 120). */
  timeout?: number;
}

/** What every call takes: where to read, whom to tell, when to stop. */
export interface CallOptions extends ConnectOptions {
  /** Relative paths are resolved against it; default `process.cwd()`. */
  cwd?: string;
  /** Variables (`${NAME}` passwords, SITESYNC_*); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Aborting stops waits and requests; an apply finishes the writes in flight and skips the rest. */
  signal?: AbortSignal;
  /** Progress and notices (`listed`, `planned`, `writing`, `change`, `problem`, `log`, `notice`); over targets, with the target's `name`. */
  onEvent?: (event: EngineEvent & { name?: string }) => void;
  /** `debug` adds the client's request log to the `log` events; default `warn`. */
  logLevel?: LogLevel;
  /** The clock: which day expiring ignore rules are compared with. */
  now?: () => Date;
}

export interface ConfigOptions extends CallOptions {
  /** Configuration files or directories; default websites.yaml. */
  files?: string[];
  only?: string[];
  skip?: string[];
}

export interface PlanOptions extends ConfigOptions {
  /** Re-send write-only values: `true` for every field of every site, or only these fields and domains. */
  syncWriteOnly?: boolean | string[];
  /** A git revision to classify changes against (pending, drift, conflict); `false`: none, not even the default tag. */
  baseline?: string | false;
  unlistedIsDrift?: boolean;
  /** Also explain every compared field. */
  explain?: boolean;
}

export interface PlanResult {
  /** The service's URL. */
  url: string;
  plan: Plan;
  /** The plan file (`sitesync plan --out`), signed with the API key: what `apply({ savedPlan })` takes. */
  savedPlan: string;
  explanation?: PlannedTarget['explanation'];
}

export interface ApplyOptions extends PlanOptions {
  /** Apply this plan file (from `plan`) exactly as reviewed, if still true; else plan now and apply. */
  savedPlan?: string;
  /** What the plan's safety limits need acknowledged (`allowDelete`: each domain or glob deleted). */
  acknowledge?: Partial<Acknowledgements>;
  /** Changes in flight at once (default 4). */
  parallelism?: number;
  /** Asked with the plan before writing; absent: approved. */
  confirm?: (plan: Plan, url: string) => Promise<boolean>;
  /** One entry per operation. */
  journal?: Journal;
}

export interface TargetsOptions {
  /** Target names or globs; default: every declared target. */
  targets?: string[];
  /** Targets at once (default 4). */
  targetParallelism?: number;
}

/** Plans the configuration against its installation. A configuration with `targets:` needs `planTargets`. */
export async function plan(options: PlanOptions = {}): Promise<PlanResult> {
  const context = contextOf(options);
  const request = planRequest(options);
  // The listing starts while the configuration is read (engine/early-listing.ts).
  const { state: root, early } = await loadWhileListing(request, context, (onRead) =>
    loadRoot(request, context, 'check', onRead),
  );
  return planResult(await planTarget(request, context, root, early));
}

/** Plans every chosen target of a configuration with `targets:`; one target's failure is its own. */
export async function planTargets(options: PlanOptions & TargetsOptions = {}): Promise<TargetSettled<PlanResult>[]> {
  const context = contextOf(options);
  const request = { ...planRequest(options), targets: options.targets ?? [] };
  const root = await loadDesiredState(request, context, 'check');
  if (root.targets === undefined) throw new SitesyncError('usage', 'the configuration declares no targets: use plan');
  const settled = await planEachTarget(root.targets, request, context, {
    targetParallelism: options.targetParallelism ?? 4,
    started: (target) => contextOf(options, target.name),
  });
  return settled.map((end) => (end.ok ? { ...end, value: planResult(end.value) } : end));
}

/**
 * Applies the configuration (planned now) or a saved plan to its
 * installation. The outcome says what happened: `nothing_to_do`, `refused`
 * (unsafe without acknowledgement, stale, not confirmed, interrupted before
 * writing) or `applied` with each change's result.
 */
export async function apply(options: ApplyOptions = {}): Promise<ApplyOutcome> {
  const context = contextOf(options);
  const request = applyRequest(options);
  const saved = options.savedPlan === undefined ? undefined : parsePlanFile(options.savedPlan, 'the saved plan');
  if (saved !== undefined && !('single' in saved)) {
    throw new SitesyncError('usage', 'the saved plan holds a plan per target: use applyTargets');
  }
  const root = await loadRoot(request, context, 'resolve');
  const { confirm, journal } = options;
  return applyTarget(
    request,
    context,
    {
      ...(confirm && { confirm: async (planned: Plan, url: string) => ((await confirm(planned, url)) ? 'yes' : 'no') }),
      ...(journal && { openJournal: () => journal }),
    },
    saved && { saved: saved.single, label: 'the saved plan' },
    root,
  );
}

/** Applies every chosen target of a configuration with `targets:` (planned now: no confirmation is asked). */
export async function applyTargets(
  options: Omit<ApplyOptions, 'savedPlan' | 'confirm' | 'journal'> & TargetsOptions & { allOrNothing?: boolean } = {},
): Promise<TargetSettled<ApplyOutcome>[]> {
  const context = contextOf(options);
  const request = { ...applyRequest(options), targets: options.targets ?? [] };
  const root = await loadDesiredState(request, context, 'resolve');
  if (root.targets === undefined) throw new SitesyncError('usage', 'the configuration declares no targets: use apply');
  return applyEachTarget(
    root.targets,
    { ...request, targetParallelism: options.targetParallelism ?? 4, allOrNothing: options.allOrNothing === true },
    context,
    { started: (target) => ({ context: contextOf(options, target.name) }) },
  );
}

/** The live websites as a canonical websites.yaml text (and what it cannot hold faithfully, as warnings). */
export async function exportSites(options: CallOptions & { only?: string[]; target?: string } = {}): Promise<Exported> {
  const request = {
    ...runRequest(connection(options)),
    only: globs('only', options.only),
    ...(options.target !== undefined && { targets: [options.target] }),
  };
  return exportLive(request, contextOf(options));
}

export interface Validation {
  valid: boolean;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

/** Checks the configuration offline: every problem, each with its file, line and column. */
export async function validate(options: Omit<ConfigOptions, keyof ConnectOptions> = {}): Promise<Validation> {
  const context = contextOf(options);
  const loaded = await loadConfig({
    files: options.files ?? [],
    cwd: context.cwd,
    env: context.env,
    secrets: 'check',
    signal: context.signal,
  });
  return { valid: loaded.state !== undefined, errors: loaded.errors, warnings: loaded.warnings };
}

/** The engine's ports from the options; a target's events carry its `name`. */
function contextOf(options: CallOptions, name?: string): EngineContext {
  const { onEvent } = options;
  return {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    signal: options.signal,
    now: options.now,
    events: (event) => onEvent?.(name === undefined ? event : { ...event, name }),
  };
}

/** How the engine's messages name this API's options. */
const OPTION_NAMES: OptionNames = {
  only: 'only',
  syncWriteOnly: 'syncWriteOnly',
  allowDelete: 'acknowledge.allowDelete',
  target: 'targets',
  url: 'url',
  apiKeyFile: 'apiKeyFile',
};

function connection(options: ConnectOptions & Pick<CallOptions, 'logLevel'>): Partial<RunRequest> {
  return {
    names: OPTION_NAMES,
    url: options.url,
    apiKeyFile: options.apiKeyFile,
    allowedOrigins: options.allowedOrigins,
    insecureHttp: options.insecureHttp === true,
    rateLimit: options.rateLimit,
    timeout: options.timeout,
    logLevel: options.logLevel ?? 'warn',
  };
}

function planRequest(options: PlanOptions): PlanRequest {
  const { syncWriteOnly } = options;
  return {
    ...runRequest({
      ...connection(options),
      files: options.files ?? [],
      only: globs('only', options.only),
      skip: globs('skip', options.skip),
    }),
    syncWriteOnly:
      syncWriteOnly === undefined || syncWriteOnly === false
        ? false
        : parseWriteOnlySync(syncWriteOnly === true ? [] : syncWriteOnly),
    unlistedIsDrift: options.unlistedIsDrift === true,
    explain: options.explain === true,
    ...(options.baseline !== undefined && { baseline: options.baseline }),
  };
}

function applyRequest(options: ApplyOptions): ApplyRequest {
  const acks = options.acknowledge ?? {};
  return {
    ...planRequest(options),
    parallelism: options.parallelism ?? 4,
    acks: { ...acks, allowDelete: globs('acknowledge.allowDelete', acks.allowDelete) },
  };
}

/** The configuration, refused when it declares targets (each target has its own connection). */
async function loadRoot(
  request: RunRequest,
  context: EngineContext,
  secrets: 'check' | 'resolve',
  onRead?: (texts: readonly string[]) => void,
) {
  const root: DesiredState = await loadDesiredState(request, context, secrets, onRead);
  if (root.targets !== undefined) {
    throw new SitesyncError('usage', 'the configuration declares targets: use planTargets or applyTargets');
  }
  return root;
}

function planResult(planned: PlannedTarget): PlanResult {
  const result: PlanResult = { url: planned.target, plan: planned.plan, savedPlan: serializeSavedPlan(planned.saved) };
  if (planned.explanation !== undefined) result.explanation = planned.explanation;
  return result;
}

function globs(option: string, values: readonly string[] | undefined): string[] {
  const written = values ?? [];
  const canonical = written.map(canonicalGlob);
  const bad = written.find((_, index) => !isValidGlob(canonical[index] as string));
  if (bad !== undefined) throw new SitesyncError('usage', `${option}: ${JSON.stringify(bad)} is not a domain glob`);
  return canonical;
}
