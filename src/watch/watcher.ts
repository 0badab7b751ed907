/**
 * The reconcile loop of `sitesync watch`. Each cycle (every `intervalMs`)
 * reloads the configuration (a bad one keeps the last good one), then checks
 * the targets one after another, spread evenly over the interval so their
 * requests never bunch up; after a check it updates metrics and alerts and,
 * when asked, heals. Level-based: each check compares everything again, so a
 * restart (even after kill -9) converges by itself.
 *
 * Stopping (`stop`, SIGTERM) lets the step in flight finish; `reload` (SIGHUP)
 * cuts the current wait short and starts a new cycle at once.
 */
import type { Clock } from '../api/clock.js';
import { SitesyncError } from '../model/errors.js';
import { type AlertDocument, type AlertKind, Alerts } from './alerts.js';
import { type HealPolicy, healable } from './heal-policy.js';
import type { Logger } from './log.js';
import type { WatchMetrics } from './metrics.js';
import type { CheckResult, HealResult, WatchPort } from './port.js';
import { type TargetState, type TargetStatus, targetStatus } from './status.js';

export interface WatchOptions {
  port: WatchPort;
  /** Waits and durations (a manual clock in tests). */
  clock: Clock;
  /** Wall time, epoch milliseconds: timestamps, windows. */
  now: () => number;
  intervalMs: number;
  renotifyMs: number;
  heal?: HealPolicy | undefined;
  metrics: WatchMetrics;
  /** Where alert documents go (webhooks.ts), never awaited. */
  notify: (document: AlertDocument) => void;
  log: Logger;
}

export class Watcher {
  readonly #options: WatchOptions;
  readonly #alerts: Alerts;
  readonly #targets = new Map<string, TargetState>();
  /** Aborted by `stop`: no new step starts. */
  readonly #stopping = new AbortController();
  /** Aborted by a second `stop`: the step in flight is cut short too. */
  readonly #hard = new AbortController();
  #wake = new AbortController();
  #reloadAsked = false;
  #order: string[] = [];
  #configError: string | undefined;
  #loadedOnce = false;
  #cycles = 0;
  /** When the next cycle starts, on the clock. */
  #nextCycle = Number.NEGATIVE_INFINITY;

  constructor(options: WatchOptions) {
    this.#options = options;
    this.#alerts = new Alerts(options.renotifyMs);
  }

  /**
   * Runs until `stop`; resolves once the step in flight has finished. `cycles` bounds the run (tests).
   * Rejects when the first configuration cannot be loaded.
   */
  async run(cycles = Number.POSITIVE_INFINITY): Promise<void> {
    const { clock, intervalMs } = this.#options;
    while (!this.#stopping.signal.aborted && this.#cycles < cycles) {
      await this.#sleepUntil(this.#nextCycle); // false when woken: stop, or SIGHUP starts a cycle now
      if (this.#stopping.signal.aborted) break;
      const started = clock.now();
      this.#nextCycle = started + intervalMs;
      await this.#reload();
      const targets = this.#order;
      let interrupted = false;
      for (const [index, target] of targets.entries()) {
        interrupted = !(await this.#sleepUntil(started + (index * intervalMs) / targets.length));
        if (interrupted) break;
        await this.#checkAndHeal(target);
      }
      if (interrupted) this.#nextCycle = clock.now();
      else this.#cycles++;
    }
  }

  /** SIGTERM: finish the step in flight, then return; a second call cuts that step short. */
  stop(): void {
    if (this.#stopping.signal.aborted) this.#hard.abort(new Error('stopped'));
    this.#stopping.abort(new Error('stopping'));
    this.#wake.abort();
  }

  /** SIGHUP: reload the configuration and start a cycle now. */
  reload(): void {
    this.#reloadAsked = true;
    this.#wake.abort();
  }

  /** Ready once each target has been checked once (whatever the result). */
  get ready(): boolean {
    return this.#cycles > 0;
  }

  status(): { ready: boolean; cycles: number; config: { ok: boolean; error?: string }; targets: TargetStatus[] } {
    return {
      ready: this.ready,
      cycles: this.#cycles,
      config: this.#configError === undefined ? { ok: true } : { ok: false, error: this.#configError },
      targets: this.#order.map((name) =>
        targetStatus(
          name,
          this.#targets.get(name) ?? { heal: emptyHeal() },
          this.#alerts.firing(name),
          this.#options.heal,
        ),
      ),
    };
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
    await this.#options.clock.sleep(wait, this.#wake.signal).catch(() => {});
    return !woken();
  }

  async #reload(): Promise<void> {
    const { port, log, metrics } = this.#options;
    const loaded = await port.reload(this.#hard.signal);
    metrics.configLoaded(loaded.ok, this.#options.now());
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
      log('info', 'configuration loaded', { targets: loaded.targets });
    this.#configError = undefined;
    this.#loadedOnce = true;
    for (const gone of this.#order.filter((target) => !loaded.targets.includes(target))) {
      metrics.forget(gone);
      this.#targets.delete(gone);
    }
    this.#order = loaded.targets;
    for (const target of loaded.targets) {
      metrics.know(target);
      if (!this.#targets.has(target)) this.#targets.set(target, { heal: emptyHeal() });
    }
  }

  async #checkAndHeal(target: string): Promise<void> {
    const { port, clock, now, metrics, log } = this.#options;
    const state = this.#targets.get(target) ?? { heal: emptyHeal() };
    this.#targets.set(target, state);
    const started = clock.now();
    let result: CheckResult;
    try {
      result = await port.check(target, this.#hard.signal);
    } catch (error) {
      const seconds = (clock.now() - started) / 1000;
      const message = error instanceof Error ? error.message : String(error);
      state.check = { at: now(), seconds, error: message };
      metrics.failed(target, seconds);
      log('warn', 'check failed', { target, error: message });
      this.#alert(target, 'check_failing', { active: true, reason: message });
      return;
    }
    const seconds = (clock.now() - started) / 1000;
    const at = now();
    state.check = { at, seconds };
    state.lastSuccess = at;
    state.lastResult = result;
    metrics.checked(target, result.sites, at, seconds);
    const counts = Object.fromEntries(Object.entries(result.sites).map(([name, sites]) => [name, sites.length]));
    log('info', 'checked', { target, seconds, ...counts });
    this.#alert(target, 'check_failing', { active: false });
    this.#alert(target, 'drift', { active: result.sites.drift.length > 0, domains: result.sites.drift });
    this.#alert(target, 'conflict', { active: result.sites.conflict.length > 0, domains: result.sites.conflict });
    await this.#heal(target, state, result);
  }

  async #heal(target: string, state: TargetState, result: CheckResult): Promise<void> {
    const { heal: policy, port, metrics, log, now } = this.#options;
    if (policy === undefined || state.heal.stopped || this.#stopping.signal.aborted) return;
    const chosen = healable(result.changes, policy, now());
    if (chosen.length === 0) return;
    if (result.unsafe) {
      log('warn', 'not healing: the plan breaks a safety rule apply would refuse', { target });
      return;
    }
    let results: HealResult[];
    try {
      results = await port.heal(target, chosen, this.#hard.signal);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      results = chosen.map((change) => ({ domain: change.domain, action: change.action, result: 'failed', reason }));
    }
    state.heal.last = results;
    for (const each of results) {
      metrics.healed(target, each.action, each.result);
      log(each.result === 'failed' ? 'warn' : 'info', `self-heal ${each.result}`, { target, ...each });
    }
    if (!results.some((each) => each.result === 'failed')) {
      state.heal.failures = 0;
      return;
    }
    state.heal.failures++;
    if (state.heal.failures < policy.maxFailures) return;
    state.heal.stopped = true;
    log('error', 'self-heal stopped after repeated failures', { target, failures: state.heal.failures });
    this.#alert(target, 'heal_stopped', { active: true, reason: `${state.heal.failures} failed heals in a row` });
  }

  #alert(target: string, kind: AlertKind, condition: Parameters<Alerts['update']>[2]): void {
    const document = this.#alerts.update(target, kind, condition, this.#options.now());
    if (document === undefined) return;
    this.#options.log('info', `alert ${document.status}`, { target, alert: kind, reminder: document.reminder });
    this.#options.notify(document);
  }
}

const emptyHeal = (): TargetState['heal'] => ({ failures: 0, stopped: false, last: [] });
