/**
 * The watch's model of each target, and `/status` as one view of it: what
 * the loop remembers between checks (`TargetState`: the last check, its
 * counts and the sites not in sync, the target's configuration, self-heal)
 * and the JSON document of one target (`targetStatus`). The status page
 * renders the same model. No URL and no secret: webhooks and keys are not here.
 */
import type { AlertKind } from './alerts.js';
import type { HealPolicy } from './heal-policy.js';
import type { CheckResult, HealResult, NamedClass, SiteClass } from './port.js';

/** What the loop remembers of a target between checks. */
export interface TargetState {
  /** The service (URL origin) the target is on. */
  service: string;
  /** Its files do not validate now (checked against the last good state meanwhile), and since when. */
  configError?: { error: string; since: number };
  check?: { at: number; seconds: number; error?: string };
  lastSuccess?: number;
  lastResult?: CheckResult;
  heal: { failures: number; stopped: boolean; last: HealResult[] };
}

export interface TargetStatus {
  target: string;
  /** This target's own configuration (a bad file of one target marks that target only). */
  config: { ok: true } | { ok: false; error: string; since: string };
  lastCheck?: { at: string; seconds: number; result: 'success' | 'error'; error?: string };
  lastSuccessAt?: string;
  counts?: Record<SiteClass, number>;
  /** The sites not in sync, by class (in-sync ones are counted only). */
  sites?: Record<NamedClass, string[]>;
  alerts: AlertKind[];
  selfHeal: { mode: string; stopped: boolean; consecutiveFailures: number; last: HealResult[] } | { mode: 'off' };
}

export function newTargetState(service: string): TargetState {
  return { service, heal: { failures: 0, stopped: false, last: [] } };
}

const iso = (ms: number) => new Date(ms).toISOString();

export function targetStatus(
  target: string,
  state: TargetState,
  alerts: AlertKind[],
  heal: HealPolicy | undefined,
): TargetStatus {
  const status: TargetStatus = {
    target,
    config:
      state.configError === undefined
        ? { ok: true }
        : { ok: false, error: state.configError.error, since: iso(state.configError.since) },
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
    const at = iso(check.at);
    status.lastCheck =
      check.error !== undefined
        ? { at, seconds: check.seconds, result: 'error', error: check.error }
        : { at, seconds: check.seconds, result: 'success' };
  }
  if (state.lastSuccess !== undefined) status.lastSuccessAt = iso(state.lastSuccess);
  // As of the last successful check: a failing check does not blank them.
  const last = state.lastResult;
  if (last !== undefined) {
    status.counts = last.counts;
    status.sites = last.sites;
  }
  return status;
}
