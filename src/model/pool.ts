/**
 * The one bounded worker pool: `work` for every item, at most `bound` at a
 * time, started in the order of the items. Changes of an apply, reads of a
 * read-back, pages of a listing and targets of a run all go through it.
 * No new item starts once `shouldStop()` says so or an item has failed;
 * items already running finish, then the first failure rejects the pool
 * (a caller that must go on after a failure catches inside `work`). Rate
 * limiting is the client's job; this only bounds concurrency.
 */
export async function eachBounded<T>(
  items: readonly T[],
  bound: number,
  work: (item: T, index: number) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && failure === undefined && !shouldStop()) {
      const index = next++;
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
