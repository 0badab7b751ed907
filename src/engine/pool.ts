/**
 * The bounded pool (model/pool.ts) for runs over targets: every target's
 * work settles on its own, one failure never stopping another.
 */
import { eachBounded } from '../model/pool.js';

export { eachBounded };

/** How one item's work ended: its value, or the error that ended it. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * `work` for every item, at most `bound` at a time, where one item's error
 * never stops another: each item's end is reported to `ended` as it happens
 * (a view may show it at once) and returned in the order of the items.
 */
export async function settleBounded<I, T>(
  items: readonly I[],
  bound: number,
  work: (item: I, index: number) => Promise<T>,
  ended?: (item: I, settled: Settled<T>, index: number) => void,
): Promise<Settled<T>[]> {
  const settled: Settled<T>[] = new Array(items.length);
  await eachBounded(items, bound, async (item, index) => {
    let outcome: Settled<T>;
    try {
      outcome = { ok: true, value: await work(item, index) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    settled[index] = outcome;
    ended?.(item, outcome, index);
  });
  return settled;
}
