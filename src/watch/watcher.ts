/**
 * The reconcile loop of `sitesync watch`. Each cycle (every `intervalMs`)
 * reloads what changed in the configuration (a bad file keeps the last good
 * state), then starts each target's check at its slot, spread evenly over
 * the interval so requests never bunch up. Checks run side by side, at most
 * `concurrency` at once and one per service (check-gate.ts); a cycle does
 * not wait for them, and a target whose previous check still runs when its
 * slot comes again is skipped once (counted). Level-based: each check
 * compares everything again, so a restart (even after kill -9) converges.
 *
 * Stopping (`stop`, SIGTERM) starts nothing new and lets the checks in flight
 * finish; `reload` (SIGHUP) cuts the current wait short and starts a cycle now
 * whose checks all start at once (an operator asking to check now means all).
 */
import { setMaxListeners } from 'node:events';
import type { Clock } from '../api/clock.js';
import { SitesyncError } from '../model/errors.js';
import { type AlertDocument, type AlertKind, Alerts } from './alerts.js';
import { CheckGate } from './check-gate.js';
import type { Claim, Coordination } from './coordination/port.js';
import { singleProcess } from './coordination/single.js';
import type { HealPolicy } from './heal-policy.js';
import type { Logger } from './log.js';
import type { WatchMetrics } from './metrics.js';
import type { WatchedTarget, WatchPort } from './port.js';
import { newTargetState, rememberAlert, type TargetState, type TargetStatus, targetStatus } from './status.js';
import { checkAndHeal, type StepContext } from './target-check.js';

/** Checks at once by default: far more services than a budget-bound cycle needs at once, few sockets. */
export const DEFAULT_CONCURRENCY = 32;

export interface WatchOptions {
  port: WatchPort;
  /** Waits and durations (a manual clock in tests). */
  clock: Clock;
  /** Wall time, epoch milliseconds: timestamps, windows. */
  now: () => number;
  intervalMs: number;
  renotifyMs: number;
  /** Checks at once (each on a different service); default DEFAULT_CONCURRENCY. */
  concurrency?: number | undefined;
  heal?: HealPolicy | undefined;
  /** Which targets this process checks and may write, and where alert state lives (default: all, in memory). */
  coordination?: Coordination | undefined;
  metrics: WatchMetrics;
  /** Where alert documents go (webhooks.ts), never awaited. */
  notify: (document: AlertDocument) => void;
  log: Logger;
  /** The status page's address of a target (`--public-url`): alerts link to it. */
  linkOf?: ((target: string) => string) | undefined;
}

export interface WatchStatus {
  ready: boolean;
  cycles: number;
  config: { ok: boolean; error?: string };
  /** This replica among the others (`single` without coordination) and how many targets it holds. */
  coordination: { replica: string; replicas: number; owned: number };
  /** The targets this process holds and checks. */
  targets: TargetStatus[];
}

export class Watcher {
  readonly #options: WatchOptions;
  readonly #alerts: Alerts;
  readonly #gate: CheckGate;
  readonly #targets = new Map<string, TargetState>();
  /** The check in flight of each target. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Aborted by `stop`: no new step starts. */
  readonly #stopping = new AbortController();
  /** Aborted by a second `stop`: the step in flight is cut short too. */
  readonly #hard = new AbortController();
  readonly #step: StepContext;
  readonly #coordination: Coordination;
  #claim: Claim = { owned: new Set(), taken: new Set(), replicas: 0 };
  /** The targets the last reload read again (counted once this process knows which are its own). */
  #reloaded: readonly string[] = [];
  #wake = new AbortController();
  #reloadAsked = false;
  /** SIGHUP asked for the next cycle: its checks start at once, not spread over the interval. */
  #hurry = false;
  #asleep = false;
  #order: WatchedTarget[] = [];
  #configError: string | undefined;
  #loadedOnce = false;
  /** Cycles whose checks were all started. */
  #passes = 0;
  /** Cycles whose checks have all ended. */
  #cycles = 0;
  /** When the next cycle starts, on the clock. */
  #nextCycle = Number.NEGATIVE_INFINITY;

  constructor(options: WatchOptions) {
    this.#options = options;
    // Every check in flight listens on these (its requests, its heal): as many as --concurrency, not a leak.
    setMaxListeners(0, this.#stopping.signal, this.#hard.signal);
    this.#coordination = options.coordination ?? singleProcess();
    this.#alerts = new Alerts(options.renotifyMs, this.#coordination.alerts);
    this.#gate = new CheckGate(options.concurrency ?? DEFAULT_CONCURRENCY);
    this.#step = {
      port: options.port,
      clock: options.clock,
      now: options.now,
      metrics: options.metrics,
      log: options.log,
      driftHistory: this.#coordination.driftHistory,
      heal: options.heal,
      alert: (target, kind, condition) => this.#alert(target, kind, condition),
      hard: this.#hard.signal,
      stopping: this.#stopping.signal,
    };
  }

  /**
   * Runs until `stop`, or until `cycles` cycles (counted since the start) have
   * started all their checks; resolves once every check in flight has ended.
   * Rejects when the first configuration cannot be loaded.
   */
  async run(cycles = Number.POSITIVE_INFINITY): Promise<void> {
    const { clock, intervalMs } = this.#options;
    try {
      while (!this.#stopping.signal.aborted && this.#passes < cycles) {
        await this.#sleepUntil(this.#nextCycle); // false when woken: stop, or SIGHUP starts a cycle now
        if (this.#stopping.signal.aborted) break;
        const started = clock.now();
        this.#nextCycle = started + intervalMs;
        await this.#reload();
        await this.#claimTargets();
        // A SIGHUP that cut this cycle short (even while its configuration was read) hurries the next one.
        if (await this.#pass(started, !this.#hurry)) {
          this.#passes++;
          this.#hurry = false;
        } else this.#nextCycle = clock.now();
      }
    } finally {
      this.#asleep = true; // waiting for the checks, not working
      await Promise.all(this.#inFlight.values());
      this.#asleep = false;
    }
  }

  /** SIGTERM: finish the steps in flight, then return; a second call cuts them short. */
  stop(): void {
    if (this.#stopping.signal.aborted) this.#hard.abort(new Error('stopped'));
    this.#stopping.abort();
    this.#wake.abort();
  }

  /** SIGHUP: reload the configuration and start a cycle now, checking every target at once (within --concurrency). */
  reload(): void {
    this.#reloadAsked = true;
    this.#hurry = true;
    this.#wake.abort();
  }

  /**
   * How many of the loop and its running checks are at work, not waiting
   * (the loop for the clock or its checks, a check for the gate): a virtual
   * clock in tests moves time only when each of them sleeps on it.
   */
  get awake(): number {
    return (this.#asleep ? 0 : 1) + this.#gate.running;
  }

  /** Ready once the first cycle's checks have all ended (whatever their results). */
  get ready(): boolean {
    return this.#cycles > 0;
  }

  status(): WatchStatus {
    const now = this.#options.now();
    return {
      ready: this.ready,
      cycles: this.#cycles,
      config: this.#configError === undefined ? { ok: true } : { ok: false, error: this.#configError },
      coordination: {
        replica: this.#coordination.id,
        replicas: this.#claim.replicas,
        owned: this.#claim.owned.size,
      },
      targets: this.#owned().map(({ name, service }) =>
        targetStatus(
          name,
          this.#targets.get(name) ?? newTargetState(service),
          this.#alerts.firing(name),
          this.#options.heal,
          this.#coordination.driftHistory.series(name, now),
          now,
        ),
      ),
    };
  }

  /** Starts each target's check at its slot; false when a stop or reload cut the cycle short. */
  async #pass(started: number, spread: boolean): Promise<boolean> {
    const { intervalMs, log, metrics } = this.#options;
    const targets = this.#owned().filter((target) => target.checkable);
    const checks: Promise<void>[] = [];
    let whole = true;
    for (const [index, target] of targets.entries()) {
      if (spread) whole = await this.#sleepUntil(started + (index * intervalMs) / targets.length);
      else whole = !this.#stopping.signal.aborted && !this.#reloadAsked;
      if (!whole) break;
      if (this.#inFlight.has(target.name)) {
        metrics.skipped(target.name);
        log('warn', 'check skipped: the previous one is still running', { target: target.name });
        continue;
      }
      checks.push(this.#start(target));
    }
    void Promise.all(checks).then(() => {
      if (!whole) return;
      this.#cycles++;
      const seconds = (this.#options.clock.now() - started) / 1000;
      log('info', 'cycle checked', { cycle: this.#cycles, checks: checks.length, seconds });
    });
    return whole;
  }

  #start(target: WatchedTarget): Promise<void> {
    const state = this.#targets.get(target.name) ?? newTargetState(target.service);
    this.#targets.set(target.name, state);
    const step = this.#gate
      .run(
        target.service,
        () =>
          checkAndHeal(this.#step, target.name, state, {
            mayHeal: !state.takenOver,
            mayWrite: () => this.#coordination.holds(target.name),
          }),
        () => this.#stopping.signal.aborted,
      )
      .then(() => undefined)
      .finally(() => this.#inFlight.delete(target.name));
    this.#inFlight.set(target.name, step);
    return step;
  }

  /** The targets of the configuration this process holds, in declaration order. */
  #owned(): WatchedTarget[] {
    return this.#order.filter((target) => this.#claim.owned.has(target.name));
  }

  /**
   * This cycle's share of the targets (all of them without coordination). A
   * target just taken from another replica is checked before it is healed:
   * its first check here only looks, so a write the previous owner had in
   * flight has landed before a plan here is made.
   */
  async #claimTargets(): Promise<void> {
    const { log, metrics } = this.#options;
    const before = this.#claim;
    const claim = await this.#coordination.claim(this.#order.map((target) => target.name));
    this.#claim = claim;
    for (const name of before.owned) if (!claim.owned.has(name)) metrics.forget(name);
    for (const name of claim.owned) {
      metrics.know(name);
      metrics.configValid(name, this.#targets.get(name)?.configError === undefined);
    }
    for (const name of this.#reloaded) if (claim.owned.has(name)) metrics.configLoaded(name);
    this.#reloaded = []; // counted once; the port's list is its own, never emptied here
    for (const name of claim.taken) {
      const state = this.#targets.get(name);
      if (state !== undefined) state.takenOver = true;
    }
    const given = [...before.owned].filter((name) => !claim.owned.has(name)).length;
    if (claim.taken.size > 0 || given > 0 || claim.replicas !== before.replicas)
      log('info', 'targets claimed', {
        replica: this.#coordination.id,
        replicas: claim.replicas,
        owned: claim.owned.size,
        taken: claim.taken.size,
        given,
      });
  }

  /** Waits until `time` on the clock; false when woken early (stop or reload). */
  async #sleepUntil(time: number): Promise<boolean> {
    const woken = () => {
      const early = this.#stopping.signal.aborted || this.#reloadAsked;
      this.#reloadAsked = false;
      return early;
    };
    if (woken()) return false;
    const wait = time - this.#options.clock.now();
    if (wait <= 0) return true;
    this.#wake = new AbortController();
    this.#asleep = true;
    await this.#options.clock.sleep(wait, this.#wake.signal).catch(() => {});
    this.#asleep = false;
    return !woken();
  }

  async #reload(): Promise<void> {
    const { port, log, metrics, now } = this.#options;
    const loaded = await port.reload(this.#hard.signal);
    metrics.configReloaded(loaded.ok, this.#options.now());
    if (!loaded.ok) {
      // As Prometheus does: a bad configuration at start is an error (exit 1); later, the last good one stays.
      if (!this.#loadedOnce) throw new SitesyncError('config', loaded.error);
      if (this.#configError !== loaded.error) {
        log('error', 'configuration invalid: keeping the last good configuration', { error: loaded.error });
      }
      this.#configError = loaded.error;
      return;
    }
    if (this.#configError !== undefined || loaded.changed)
      log('info', 'configuration loaded', { targets: loaded.targets.length });
    this.#configError = undefined;
    this.#loadedOnce = true;
    const names = new Set(loaded.targets.map((target) => target.name));
    for (const gone of this.#order.filter((target) => !names.has(target.name))) {
      metrics.forget(gone.name);
      this.#coordination.driftHistory.forget(gone.name);
      this.#targets.delete(gone.name);
    }
    this.#order = loaded.targets;
    this.#reloaded = loaded.reloaded;
    for (const target of loaded.targets) {
      const state = this.#targets.get(target.name) ?? newTargetState(target.service);
      state.service = target.service;
      this.#targets.set(target.name, state);
      this.#configOf(target, state, now());
    }
  }

  /** A target's own configuration: valid again, or invalid (logged once, marked in /status and a metric). */
  #configOf(target: WatchedTarget, state: TargetState, at: number): void {
    const { log } = this.#options;
    if (target.error === undefined) {
      if (state.configError !== undefined) log('info', 'target configuration valid again', { target: target.name });
      delete state.configError;
      return;
    }
    if (state.configError?.error !== target.error) {
      const keeping = target.checkable ? 'checking against its last good state' : 'not checked until it validates';
      log('error', `target configuration invalid: ${keeping}`, { target: target.name, error: target.error });
      state.configError = { error: target.error, since: state.configError?.since ?? at };
    }
  }

  async #alert(target: string, kind: AlertKind, condition: Parameters<Alerts['update']>[2]): Promise<void> {
    const found = await this.#alerts.update(target, kind, condition, this.#options.now());
    if (found === undefined) return;
    const document = withLink(found, this.#options.linkOf?.(target));
    const state = this.#targets.get(target);
    if (state !== undefined) rememberAlert(state, document);
    this.#options.log('info', `alert ${document.status}`, { target, alert: kind, reminder: document.reminder });
    this.#options.notify(document);
  }
}

/** The alert with the page's address of its target, also at the end of `text` (Slack links it). */
function withLink(document: AlertDocument, url: string | undefined): AlertDocument {
  if (url === undefined) return document;
  const anchor = document.alert === 'drift' || document.alert === 'conflict' ? `#${document.alert}` : '';
  return { ...document, text: `${document.text} ${url}${anchor}`, url: `${url}${anchor}` };
}
