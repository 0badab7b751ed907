/**
 * What `sitesync watch` asks of the engine, and nothing more: check a target
 * (list, plan, classify against the baseline) and heal chosen changes of the
 * last check through apply's own safety gate. The scheduler, budget, metrics,
 * alerts, windows and the status server depend only on this port; the
 * adapter over the engine is `engine-port.ts`.
 */

/** How each site of a target stands, as `sitesync_websites{class}` counts it. */
export const SITE_CLASSES = ['in_sync', 'pending', 'drift', 'conflict', 'unmanaged'] as const;
export type SiteClass = (typeof SITE_CLASSES)[number];

/** The classes a change can have (a site with no change is `in_sync`, one outside the configuration `unmanaged`). */
export type ChangeClass = 'pending' | 'drift' | 'conflict';
export type ChangeAction = 'create' | 'update' | 'delete';

export interface WatchedChange {
  domain: string;
  action: ChangeAction;
  class: ChangeClass;
}

/** How many websites or plans break one policy (0 included: every policy that applies has its series). */
export interface PolicyCount {
  policy: string;
  severity: 'error' | 'warning';
  violations: number;
}

export interface CheckResult {
  /** Every site of the target by class, domains sorted. */
  sites: Record<SiteClass, string[]>;
  changes: WatchedChange[];
  /** The plan breaks a safety rule apply would refuse without acknowledgement (self-heal then writes nothing). */
  unsafe: boolean;
  /** Each policy that applies to the target; absent without policies. Self-heal never makes a change that breaks an error one. */
  policies?: PolicyCount[];
  /** Each drifted or conflicting site: when a check first saw it so (ISO 8601), while it stays so. */
  driftSince?: Record<string, string>;
}

export interface HealResult {
  domain: string;
  action: ChangeAction;
  result: 'applied' | 'failed' | 'skipped';
  /** Why it failed or was skipped (never a secret). */
  reason?: string;
}

/** The configuration as last loaded: the targets to watch, or the reason it is not valid. */
export type Loaded = { ok: true; targets: string[]; changed: boolean } | { ok: false; error: string };

export interface WatchPort {
  /** Reads the configuration again (and, in git-pull mode, pulls first); a bad one keeps the last good one. */
  reload(signal: AbortSignal): Promise<Loaded>;
  check(target: string, signal: AbortSignal): Promise<CheckResult>;
  /**
   * Applies exactly these changes of the target's last check, or refuses all of
   * them when the plan is unsafe. Journaled by the adapter.
   */
  heal(target: string, changes: readonly WatchedChange[], signal: AbortSignal): Promise<HealResult[]>;
  close(): Promise<void>;
}

/** An empty class table. */
export function noSites(): Record<SiteClass, string[]> {
  return { in_sync: [], pending: [], drift: [], conflict: [], unmanaged: [] };
}
