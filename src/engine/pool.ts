/**
 * The one bounded worker pool: `work` for every item, at most `bound` at a
 * time, in order of the items. Targets of a run, pages of a listing and
 * changes of an apply all go through it. A rejection of `work` rejects the
 * pool once every started item has ended (callers that must not stop at one
 * failure catch inside `work`).
 */
export async function eachBounded<T>(
  items: readonly T[],
  bound: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    for (let index = next++; index < items.length && failure === undefined; index = next++) {
      try {
        await work(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(bound, items.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}

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
