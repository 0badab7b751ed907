/**
 * One account's share of the PostgreSQL pool. A write to an account's websites
 * takes that account's row lock (the website count and limit live on it); while
 * another process holds the lock, every pending write of the account would hold
 * a pooled connection just to wait, and 40 of them fill a 10-connection pool:
 * every other account waits too. Here at most `perAccount` writes of one
 * account hold connections; the rest queue in memory, holding none, and give
 * up with StoreBusyError (503, Retry-After) after `waitMs`, the statement
 * timeout, as a statement waiting on the lock itself would.
 */
import { StoreBusyError, type WebsiteStore } from '../contract.js';

type WebsiteWrites = Pick<WebsiteStore, 'insertWebsite' | 'updateWebsite' | 'deleteWebsite'>;

interface Lane {
  running: number;
  waiting: (() => void)[];
}

export type AccountGate = <T>(accountId: number, work: () => Promise<T>) => Promise<T>;

export function accountGate(perAccount: number, waitMs: number): AccountGate {
  const lanes = new Map<number, Lane>();

  function turn(lane: Lane): Promise<void> {
    if (lane.running < perAccount) {
      lane.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        lane.running += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        lane.waiting.splice(lane.waiting.indexOf(go), 1);
        reject(new StoreBusyError());
      }, waitMs);
      lane.waiting.push(go);
    });
  }

  return async (accountId, work) => {
    let lane = lanes.get(accountId);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      lanes.set(accountId, lane);
    }
    await turn(lane);
    try {
      return await work();
    } finally {
      lane.running -= 1;
      const next = lane.waiting.shift();
      if (next) next();
      else if (lane.running === 0) lanes.delete(accountId);
    }
  };
}

/** One account's writes may hold a quarter of the pool (at least one connection). */
export const accountShare = (poolSize: number) => Math.max(1, Math.floor(poolSize / 4));

/** The store with its website writes (the ones that take the account's row lock) gated per account. */
export function boundAccountWrites<S extends WebsiteWrites>(store: S, poolSize: number, waitMs: number): S {
  const gate = accountGate(accountShare(poolSize), waitMs);
  return {
    ...store,
    insertWebsite: (accountId, ...rest) => gate(accountId, () => store.insertWebsite(accountId, ...rest)),
    updateWebsite: (accountId, ...rest) => gate(accountId, () => store.updateWebsite(accountId, ...rest)),
    deleteWebsite: (accountId, ...rest) => gate(accountId, () => store.deleteWebsite(accountId, ...rest)),
  };
}
