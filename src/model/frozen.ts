/**
 * Immutable copies of plain data (a plan) that the engine hands to callers
 * while it keeps using the same value: what a caller can read, it cannot
 * change, so the plan the safety gate checked is the plan that is written.
 * Pure; imports nothing.
 */

/** A deep copy of `value`, frozen all the way down (a mutation throws a TypeError in strict code). */
export function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}
