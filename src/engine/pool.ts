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
