/**
 * Which changes self-heal may make, PURE: the classes asked for
 * (`--self-heal drift|pending|all`), never a delete unless its exact domain is
 * pre-acknowledged (`--allow-delete`), at most `--max-heal` a cycle, and only
 * inside a `--window` when one is given. The plan's own safety rules are
 * checked by the adapter with apply's gate (an unsafe plan heals nothing).
 */
import type { ChangeClass, WatchedChange } from './port.js';
import { inAnyWindow, type Window } from './window.js';

export const HEAL_MODES = ['drift', 'pending', 'all'] as const;
export type HealMode = (typeof HEAL_MODES)[number];

const CLASSES_OF: Readonly<Record<HealMode, readonly ChangeClass[]>> = {
  drift: ['drift'],
  pending: ['pending'],
  all: ['pending', 'drift', 'conflict'],
};

export interface HealPolicy {
  mode: HealMode;
  /** At most this many changes a cycle, per target. */
  maxPerCycle: number;
  /** Exact domains whose delete is acknowledged in advance. */
  allowDelete: readonly string[];
  /** Empty: any time. */
  windows: readonly Window[];
  /** Consecutive failed heals after which healing stops for the target (and an alert fires). */
  maxFailures: number;
}

/** Whether self-heal may write now: inside one of its windows, or at any time without windows. */
export function insideWindow(policy: Pick<HealPolicy, 'windows'>, now: number): boolean {
  return policy.windows.length === 0 || inAnyWindow(policy.windows, now);
}

/** The changes to heal now, in domain order; empty outside every window. */
export function healable(changes: readonly WatchedChange[], policy: HealPolicy, now: number): WatchedChange[] {
  if (!insideWindow(policy, now)) return [];
  const classes = CLASSES_OF[policy.mode];
  return changes
    .filter((change) => classes.includes(change.class))
    .filter((change) => change.action !== 'delete' || policy.allowDelete.includes(change.domain))
    .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0))
    .slice(0, policy.maxPerCycle);
}
