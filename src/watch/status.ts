/**
 * The watch's model of each target, and `/status` as one view of it: what
 * the loop remembers between checks (`TargetState`: the last check, its
 * counts and the sites not in sync, the target's configuration, self-heal)
 * and the JSON document of one target (`targetStatus`). The status page
 * renders the same model (page/). No secret: webhooks and keys are not here.
 */
import type { AlertDocument, AlertKind } from './alerts.js';
import type { SiteDifference } from './differences.js';
import type { DriftSeries } from './drift-history.js';
import { type HealPolicy, insideWindow } from './heal-policy.js';
import type { CheckResult, HealResult, NamedClass, SiteClass } from './port.js';

/** Heals and alerts remembered per target for the status page, newest first. */
export const RECENT_KEPT = 20;

export interface HealRecord extends HealResult {
  at: string;
}

export interface AlertRecord {
  at: string;
  alert: AlertKind;
  status: 'firing' | 'resolved';
  reminder: boolean;
  /** How many sites it named (the sites themselves are on the page already). */
  sites: number;
  reason?: string;
}

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
  /** The last heals and alerts, newest first (at most RECENT_KEPT each). */
  recent: { heals: HealRecord[]; alerts: AlertRecord[] };
  /** Just taken from another replica: its next check only looks (no heal) until one has succeeded here. */
  takenOver?: boolean;
}

export interface TargetStatus {
  target: string;
  /** The service (URL origin) it is on. */
  service: string;
  /** This target's own configuration (a bad file of one target marks that target only). */
  config: { ok: true } | { ok: false; error: string; since: string };
  lastCheck?: { at: string; seconds: number; result: 'success' | 'error'; error?: string };
  lastSuccessAt?: string;
  counts?: Record<SiteClass, number>;
  /** The sites not in sync, by class (in-sync ones are counted only). */
  sites?: Record<NamedClass, string[]>;
  /** The plan's change of the first sites of each class (differences.ts), as of the last successful check. */
  differences?: SiteDifference[];
  /** Each drifted or conflicting site, and when a check first saw it so. */
  driftSince?: Record<string, string>;
  alerts: AlertKind[];
  selfHeal:
    | {
        mode: string;
        stopped: boolean;
        consecutiveFailures: number;
        /** False outside every `--window` (heals wait); true without windows. */
        insideWindow: boolean;
        last: HealResult[];
      }
    | { mode: 'off' };
  recentHeals: HealRecord[];
  recentAlerts: AlertRecord[];
  /** The drift count of the last 24 hours (drift-history.ts). */
  drift24h: { from: string; bucketSeconds: number; counts: (number | null)[] };
}

export function newTargetState(service: string): TargetState {
  return { service, heal: { failures: 0, stopped: false, last: [] }, recent: { heals: [], alerts: [] } };
}

/** A heal's results, remembered with their time. */
export function rememberHeals(state: TargetState, at: number, results: readonly HealResult[]): void {
  const records = results.map((result) => ({ at: iso(at), ...result }));
  state.recent.heals = [...records, ...state.recent.heals].slice(0, RECENT_KEPT);
}

/** An alert sent, remembered without its domain list. */
export function rememberAlert(state: TargetState, document: AlertDocument): void {
  const record: AlertRecord = {
    at: document.at,
    alert: document.alert,
    status: document.status,
    reminder: document.reminder,
    sites: document.domains.length,
    ...(document.reason !== undefined && { reason: document.reason }),
  };
  state.recent.alerts = [record, ...state.recent.alerts].slice(0, RECENT_KEPT);
}

const iso = (ms: number) => new Date(ms).toISOString();

export function targetStatus(
  target: string,
  state: TargetState,
  alerts: AlertKind[],
  heal: HealPolicy | undefined,
  drift: DriftSeries,
  now: number,
): TargetStatus {
  const status: TargetStatus = {
    target,
    service: state.service,
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
            insideWindow: insideWindow(heal, now),
            last: state.heal.last,
          },
    recentHeals: state.recent.heals,
    recentAlerts: state.recent.alerts,
    drift24h: { from: iso(drift.from), bucketSeconds: drift.bucketMs / 1000, counts: drift.counts },
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
    status.differences = last.differences ?? [];
    if (last.driftSince !== undefined) status.driftSince = last.driftSince;
  }
  return status;
}
