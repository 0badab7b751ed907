// Which replica holds a target (coordination/assignment.ts): every replica must compute the same
// owner from the same live replicas whatever their order, replicas of different versions must agree
// on the lock keys, and a replica joining or leaving moves only the targets it wins or held.
import { describe, expect, it } from 'vitest';
import { lockKey, ownerOf, replicaKey, targetKey } from '../../src/watch/coordination/assignment.js';

const replicas = ['replica-a', 'replica-b', 'replica-c', 'replica-d'];
const targets = Array.from({ length: 200 }, (_, index) => targetKey(`target-${index}`));

describe('replica assignment', () => {
  it('keys are the first 31 bits of SHA-256, under fixed prefixes every version shares', () => {
    expect(lockKey('abc')).toBe(0xba7816bf & 0x7fffffff); // SHA-256("abc") begins ba7816bf
    expect(targetKey('site-a')).toBe(1_789_918_389);
    expect(replicaKey('replica-1')).toBe(2_014_258_949);
  });

  it('gives a target to the replica that scores it highest, whatever the order of the replicas', () => {
    expect(ownerOf(targets[0] as number, [])).toBeUndefined();
    expect(ownerOf(targets[0] as number, ['only'])).toBe('only');
    for (const key of targets) {
      const score = (replica: string) => lockKey(`${replica}\u0000${key}`);
      const best = replicas.reduce((a, b) => (score(b) > score(a) ? b : a));
      expect(ownerOf(key, replicas)).toBe(best);
      expect(ownerOf(key, [...replicas].reverse())).toBe(best);
    }
  });

  it('breaks a tie of scores by the lower name, in either order', () => {
    const key = targetKey('site-a');
    const tied = ['r46420', 'r53927']; // found by hashing r0, r1, … until two scores met
    expect(lockKey(`r46420\u0000${key}`)).toBe(lockKey(`r53927\u0000${key}`));
    expect(ownerOf(key, tied)).toBe('r46420');
    expect(ownerOf(key, [...tied].reverse())).toBe('r46420');
  });

  it('moves only the targets of a replica that leaves, and to one that joins only what it wins', () => {
    const before = targets.map((key) => ownerOf(key, replicas));
    const afterLeave = targets.map((key) => ownerOf(key, replicas.slice(0, 3)));
    const afterJoin = targets.map((key) => ownerOf(key, [...replicas, 'replica-e']));
    targets.forEach((_, index) => {
      if (before[index] !== 'replica-d') expect(afterLeave[index]).toBe(before[index]);
      if (afterJoin[index] !== 'replica-e') expect(afterJoin[index]).toBe(before[index]);
    });
    // Spread, not piled on one replica.
    for (const replica of replicas) expect(before.filter((owner) => owner === replica).length).toBeGreaterThan(20);
    expect(afterJoin.filter((owner) => owner === 'replica-e').length).toBeGreaterThan(10);
  });
});
