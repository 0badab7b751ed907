/**
 * The `/status` document of one target: the last check (when, how long, the
 * result or its error), the sites in each class, the alerts firing and the
 * state of self-heal. No URL and no secret: webhooks and keys are not here.
 */
import type { AlertKind } from './alerts.js';
import type { HealPolicy } from './heal-policy.js';
import type { CheckResult, HealResult, SiteClass } from './port.js';

/** What the loop remembers of a target between checks. */
export interface TargetState {
  check?: { at: number; seconds: number; error?: string };
  lastSuccess?: number;
  lastResult?: CheckResult;
  heal: { failures: number; stopped: boolean; last: HealResult[] };
}

export interface TargetStatus {
  target: string;
  lastCheck?: { at: string; seconds: number; result: 'success' | 'error'; error?: string };
  lastSuccessAt?: string;
  counts?: Record<SiteClass, number>;
  sites?: Record<SiteClass, string[]>;
  /** Each drifted or conflicting site, and when a check first saw it so. */
  driftSince?: Record<string, string>;
  alerts: AlertKind[];
  selfHeal: { mode: string; stopped: boolean; consecutiveFailures: number; last: HealResult[] } | { mode: 'off' };
}

export function targetStatus(
  target: string,
  state: TargetState,
  alerts: AlertKind[],
  heal: HealPolicy | undefined,
): TargetStatus {
  const status: TargetStatus = {
    target,
    alerts,
    selfHeal:
      heal === undefined
        ? { mode: 'off' }
        : {
            mode: heal.mode,
            stopped: state.heal.stopped,
            consecutiveFailures: state.heal.failures,
            last: state.heal.last,
          },
  };
  const check = state.check;
  if (check !== undefined) {
    const at = new Date(check.at).toISOString();
    status.lastCheck =
      check.error !== undefined
        ? { at, seconds: check.seconds, result: 'error', error: check.error }
        : { at, seconds: check.seconds, result: 'success' };
  }
  if (state.lastSuccess !== undefined) status.lastSuccessAt = new Date(state.lastSuccess).toISOString();
  // The sites as of the last successful check: a failing check does not blank them.
  const last = state.lastResult;
  if (last !== undefined) {
    status.sites = last.sites;
    if (last.driftSince !== undefined) status.driftSince = last.driftSince;
    status.counts = Object.fromEntries(
      Object.entries(last.sites).map(([name, sites]) => [name, sites.length]),
    ) as Record<SiteClass, number>;
  }
  return status;
}
