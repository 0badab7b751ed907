/**
 * Coordination of watch replicas, as one port: which targets this process
 * checks and may write (`claim`, asked each cycle; `holds`, asked again before
 * every write of a heal) and where alert state lives (what was sent, since
 * when a condition holds). Two implementations: `single.ts`, one process that
 * owns everything and keeps alert state in memory (watch without
 * --coordination-env), and `postgres.ts`, replicas sharing the work through
 * PostgreSQL advisory locks and keeping alert state in the database.
 */

import type { DriftHistory } from '../drift-history.js';

/** A condition of a target that has fired and not been resolved yet. */
export interface ActiveAlert {
  /** Epoch milliseconds. */
  since: number;
  lastSent: number;
  /** The sites of the last document sent (an update goes out when the set grows). */
  domains: readonly string[];
}

export interface Claim {
  /** The targets this process holds now: the ones it checks and may heal. */
  owned: ReadonlySet<string>;
  /**
   * Of those, the ones it has just taken from another replica (or from one
   * that died): another process may have had a write in flight moments ago.
   */
  taken: ReadonlySet<string>;
  /** Live replicas, this one included. */
  replicas: number;
}

export interface Coordination {
  /** This process's name among the replicas (host, pid and a random part). */
  readonly id: string;
  /** Takes and gives back targets for this cycle; `targets` are every target the configuration declares now. */
  claim(targets: readonly string[]): Promise<Claim>;
  /** Whether this process still holds the target, asked right before each write (false on any doubt). */
  holds(target: string): Promise<boolean>;
  /** The alert state of the targets this process holds. */
  readonly alerts: AlertState;
  /** The status page's drift history of the targets this process holds. */
  readonly driftHistory: DriftHistory;
  close(): Promise<void>;
}

export interface AlertState {
  get(target: string, alert: string): ActiveAlert | undefined;
  /** Records the new state (undefined: resolved) before the document is sent: a restart neither re-sends nor forgets. */
  set(target: string, alert: string, state: ActiveAlert | undefined): Promise<void>;
}

/** Alert state in memory: a restart forgets it. */
export class MemoryAlertState implements AlertState {
  readonly #active = new Map<string, ActiveAlert>();

  get(target: string, alert: string): ActiveAlert | undefined {
    return this.#active.get(`${target}\u0000${alert}`);
  }

  async set(target: string, alert: string, state: ActiveAlert | undefined): Promise<void> {
    if (state === undefined) this.#active.delete(`${target}\u0000${alert}`);
    else this.#active.set(`${target}\u0000${alert}`, { ...state });
  }

  /** Replaces what is known of `target` (loaded from elsewhere). */
  replace(target: string, states: ReadonlyMap<string, ActiveAlert>): void {
    for (const key of [...this.#active.keys()]) if (key.startsWith(`${target}\u0000`)) this.#active.delete(key);
    for (const [alert, state] of states) this.#active.set(`${target}\u0000${alert}`, { ...state });
  }
}
