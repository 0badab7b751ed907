/**
 * A full database on SQLite: SQLITE_FULL (the filesystem has no space, or the
 * file reached its `max_page_count`) becomes StoreFullError, answered 503 with
 * Retry-After, and the store remembers that writes fail, so `/ready` takes the
 * server out of its balancer. Any write that succeeds clears it (space was
 * freed); so does time: after RECHECK_MS `/ready` lets traffic in again, and
 * the next write finds out.
 */
import { StoreFullError } from '../contract.js';
import type { SyncOperations } from './busy.js';

export const RECHECK_MS = 30_000;

const isFull = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_FULL';

/** The operations that write: one of them succeeding means there was room. */
const WRITES = new Set([
  'insertWebsite',
  'updateWebsite',
  'deleteWebsite',
  'createAccount',
  'updateAccount',
  'addKey',
  'revokeKey',
  'revokeOtherKeys',
  'revokeProvisionedKeysExcept',
]);

/** The operations, watched for SQLITE_FULL; `failing()` says whether writes fail for want of space. */
export function watchFullness<S extends object>(
  operations: SyncOperations<S>,
  clock: () => number = Date.now,
): { operations: SyncOperations<S>; failing: () => boolean } {
  let fullAt: number | undefined;
  const watched: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(operations) as [string, (...args: unknown[]) => unknown][]) {
    watched[name] = (...args: unknown[]) => {
      try {
        const result = operation(...args);
        if (WRITES.has(name)) fullAt = undefined;
        return result;
      } catch (error) {
        if (!isFull(error)) throw error;
        fullAt = clock();
        throw new StoreFullError();
      }
    };
  }
  return {
    operations: watched as SyncOperations<S>,
    failing: () => fullAt !== undefined && clock() - fullAt < RECHECK_MS,
  };
}
