/**
 * What `sitesync watch` asks of the engine, and nothing more: check a target
 * (list, plan, classify against the baseline) and heal chosen changes of the
 * last check through apply's own safety gate. The scheduler, budget, metrics,
 * alerts, windows and the status server depend only on this port; the
 * adapter over the engine is `engine-port.ts`.
 */
import type { SiteDifference } from './differences.js';

/** How each site of a target stands, as `sitesync_websites{class}` counts it. */
export const SITE_CLASSES = ['in_sync', 'pending', 'drift', 'conflict', 'unmanaged'] as const;
export type SiteClass = (typeof SITE_CLASSES)[number];
/** The classes whose sites a check keeps by name (in-sync sites are only counted: a fleet holds millions). */
export type NamedClass = Exclude<SiteClass, 'in_sync'>;

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

/** What a check keeps once it ends: counts, the sites not in sync and their changes; never the listing. */
export interface CheckResult {
  counts: Record<SiteClass, number>;
  /** The sites of each class but in_sync, domains sorted. */
  sites: Record<NamedClass, string[]>;
  changes: WatchedChange[];
  /** The field-by-field differences of the first sites of each class, for the status page (differences.ts). */
  differences?: SiteDifference[];
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

/** A target as the configuration declares it now. */
export interface WatchedTarget {
  name: string;
  /** The service (URL origin) it is on: checks of one service run one at a time, sharing its budget. */
  service: string;
  /** Its files do not validate now: it is checked against its last good state, when it has one. */
  error?: string;
  /** Whether there is a state to check against (false: invalid since it was first seen). */
  checkable: boolean;
}

/** The configuration as last loaded: the targets to watch, or the reason it is not valid. */
export type Loaded =
  | {
      ok: true;
      targets: WatchedTarget[];
      /** The targets whose files were read and validated again this time (the others kept their state). */
      reloaded: string[];
      changed: boolean;
    }
  | { ok: false; error: string };

/** Asked before each write of a heal: false stops the heal there (the write is skipped). */
export type WriteGuard = () => Promise<boolean>;

export interface WatchPort {
  /** Reads what changed in the configuration (and, in git-pull mode, pulls first); a bad root keeps the last good one. */
  reload(signal: AbortSignal): Promise<Loaded>;
  check(target: string, signal: AbortSignal): Promise<CheckResult>;
  /**
   * Applies exactly these changes of the target's last check, or refuses all of
   * them when the plan is unsafe; `mayWrite` is asked before each write. Journaled by the adapter.
   */
  heal(
    target: string,
    changes: readonly WatchedChange[],
    signal: AbortSignal,
    mayWrite?: WriteGuard,
  ): Promise<HealResult[]>;
  close(): Promise<void>;
}

/** An empty table of the named classes. */
export function noSites(): Record<NamedClass, string[]> {
  return { pending: [], drift: [], conflict: [], unmanaged: [] };
}
