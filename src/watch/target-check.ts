/**
 * One step of the loop for one target: check it, record the result (state,
 * metrics, log), update its alerts and, when asked and allowed, heal. The
 * loop (watcher.ts) decides when; this decides what follows from a check.
 * A heal happens only while `mayWrite` says the target is still this
 * process's to write (coordination.ts), asked again before every write.
 */
import type { Clock } from '../api/clock.js';
import type { AlertKind } from './alerts.js';
import type { DriftHistory } from './drift-history.js';
import { type HealPolicy, healable } from './heal-policy.js';
import type { Logger } from './log.js';
import type { WatchMetrics } from './metrics.js';
import type { CheckResult, HealResult, WatchPort, WriteGuard } from './port.js';
import { rememberHeals, type TargetState } from './status.js';

export interface StepContext {
  port: WatchPort;
  clock: Clock;
  now: () => number;
  metrics: WatchMetrics;
  log: Logger;
  /** The drift count of each successful check, for the status page's chart. */
  driftHistory: DriftHistory;
  heal?: HealPolicy | undefined;
  alert: (
    target: string,
    kind: AlertKind,
    condition: { active: boolean; domains?: readonly string[]; reason?: string },
  ) => Promise<void>;
  /** Aborted by a second stop: the step in flight is cut short. */
  hard: AbortSignal;
  /** Aborted by the first stop: no heal starts. */
  stopping: AbortSignal;
}

export interface StepOptions {
  /** Heals are allowed in this step (not in the first check after taking a target over). */
  mayHeal: boolean;
  mayWrite?: WriteGuard | undefined;
}

export async function checkAndHeal(
  context: StepContext,
  target: string,
  state: TargetState,
  options: StepOptions,
): Promise<void> {
  const { port, clock, now, metrics, log } = context;
  const started = clock.now();
  let result: CheckResult;
  try {
    result = await port.check(target, context.hard);
  } catch (error) {
    const seconds = (clock.now() - started) / 1000;
    const message = error instanceof Error ? error.message : String(error);
    state.check = { at: now(), seconds, error: message };
    metrics.failed(target, seconds);
    log('warn', 'check failed', { target, error: message });
    await context.alert(target, 'check_failing', { active: true, reason: message });
    return;
  }
  const seconds = (clock.now() - started) / 1000;
  const at = now();
  delete state.takenOver; // this listing came after anything the previous owner had in flight
  state.check = { at, seconds };
  state.lastSuccess = at;
  state.lastResult = result;
  metrics.checked(target, result.counts, at, seconds);
  metrics.policies(target, result.policies ?? []);
  context.driftHistory.record(target, at, result.counts.drift);
  log('info', 'checked', { target, seconds, ...result.counts });
  await context.alert(target, 'check_failing', { active: false });
  await context.alert(target, 'drift', { active: result.sites.drift.length > 0, domains: result.sites.drift });
  await context.alert(target, 'conflict', {
    active: result.sites.conflict.length > 0,
    domains: result.sites.conflict,
  });
  if (options.mayHeal) await heal(context, target, state, result, options.mayWrite);
}

async function heal(
  context: StepContext,
  target: string,
  state: TargetState,
  result: CheckResult,
  mayWrite: WriteGuard | undefined,
): Promise<void> {
  const { heal: policy, port, metrics, log, now } = context;
  if (policy === undefined || state.heal.stopped || context.stopping.aborted) return;
  const chosen = healable(result.changes, policy, now());
  if (chosen.length === 0) return;
  if (result.unsafe) {
    log('warn', 'not healing: the plan breaks a safety rule apply would refuse', { target });
    return;
  }
  let results: HealResult[];
  try {
    results = await port.heal(target, chosen, context.hard, mayWrite);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    results = chosen.map((change) => ({ domain: change.domain, action: change.action, result: 'failed', reason }));
  }
  state.heal.last = results;
  rememberHeals(state, now(), results);
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
  await context.alert(target, 'heal_stopped', {
    active: true,
    reason: `${state.heal.failures} failed heals in a row`,
  });
}
