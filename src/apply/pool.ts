/**
 * Bounded parallelism: run `work` over items with at most `limit` in flight.
 * Stops starting new items once `shouldStop()` says so; items already running
 * finish. Rate limiting is the client's job; this only bounds concurrency.
 */

export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
  shouldStop: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !shouldStop()) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
}
