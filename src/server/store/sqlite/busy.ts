/**
 * Waiting for a locked SQLite file without freezing the server. SQLite's own
 * busy handler sleeps inside the call, blocking the event loop for every other
 * request; instead the connection fails at once (busy_timeout 0) and the
 * operation is tried again after a timer, with growing pauses, until the lock
 * wait runs out: then StoreBusyError (the server answers 503 with Retry-After).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreBusyError } from '../contract.js';

const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 50;

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

async function retry<T>(work: () => T, lockWaitMs: number, onRetry?: () => void): Promise<T> {
  const deadline = Date.now() + lockWaitMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new StoreBusyError();
    await sleep(Math.min(pause, left));
    onRetry?.();
    try {
      return work();
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
  }
}

/**
 * Runs `work` now (so an unlocked database answers with no timer at all); when the
 * file is locked, again later. Errors, the work's own included, become rejections.
 */
export function whenUnlocked<T>(work: () => T, lockWaitMs: number, onRetry?: () => void): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return isBusy(error) ? retry(work, lockWaitMs, onRetry) : Promise.reject(error);
  }
}

/** How long opening a database waits for another process's lock (a migration, a backup, a second server starting). */
const STARTUP_LOCK_WAIT_MS = 60_000;
const STARTUP_PAUSE_MS = 20;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs the opening steps (journal mode, migrations) until no other process's lock is in the way. Blocking
 * is fine before the server listens, and needed: SQLite's busy handler gives up after busy_timeout, and
 * skips waiting altogether when two starting processes each hold a read lock that both want to promote
 * (switching to WAL) — so every SQLITE_BUSY is retried here. `onWait` is told once that it waits.
 */
export function openingWhenUnlocked<T>(work: () => T, onWait?: () => void): T {
  const deadline = Date.now() + STARTUP_LOCK_WAIT_MS;
  for (let told = false; ; ) {
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      if (!told) onWait?.();
      told = true;
      Atomics.wait(pause, 0, 0, STARTUP_PAUSE_MS);
    }
  }
}

/** An interface's Promise-returning methods, as synchronous functions. */
export type SyncOperations<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** Synchronous operations → the asynchronous interface, each one waiting for locks as above (`onRetry` counts the tries). */
export function lockWaiting<S extends object>(
  operations: SyncOperations<S>,
  lockWaitMs: number,
  onRetry?: () => void,
): S {
  const wrapped: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(operations) as [string, (...args: unknown[]) => unknown][]) {
    wrapped[name] = (...args: unknown[]) => whenUnlocked(() => operation(...args), lockWaitMs, onRetry);
  }
  return wrapped as S;
}
