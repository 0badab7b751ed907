/**
 * Which live replica each target belongs to, PURE: rendezvous hashing (each
 * replica scores each target; the highest score wins), so every replica
 * computes the same answer from the same set of live replicas, and a replica
 * joining or leaving moves only the targets it wins or held. Targets are
 * placed by their lock key, so two targets whose names hash to one key (one
 * lock) always go to the same replica.
 */
import { createHash } from 'node:crypto';

/** A non-negative 31-bit number for `text` (an advisory lock's key). */
export function lockKey(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) & 0x7fffffff;
}

export const targetKey = (target: string) => lockKey(`sitesync watch target\u0000${target}`);
export const replicaKey = (replica: string) => lockKey(`sitesync watch replica\u0000${replica}`);

/** The replica (of `replicas`) a target's key belongs to. */
export function ownerOf(key: number, replicas: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const replica of replicas) {
    const score = lockKey(`${replica}\u0000${key}`);
    if (score > bestScore || (score === bestScore && best !== undefined && replica < best)) {
      best = replica;
      bestScore = score;
    }
  }
  return best;
}
