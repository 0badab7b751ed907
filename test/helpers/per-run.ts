/**
 * One resource for the whole vitest run, from global setup files. Vitest runs
 * a global setup once per project that lists it (the root config's are
 * inherited by both projects, and the root project runs them too), but all in
 * the one main process: the first call starts the resource, the last
 * teardown stops it.
 */
interface Shared<T> {
  value: T;
  users: number;
}

const registry = globalThis as { sitesyncPerRun?: Map<string, Shared<unknown>> };

export function perRun<T>(key: string, start: () => T, stop: (value: T) => void): { value: T; release: () => void } {
  registry.sitesyncPerRun ??= new Map();
  const all = registry.sitesyncPerRun;
  let shared = all.get(key) as Shared<T> | undefined;
  if (!shared) {
    shared = { value: start(), users: 0 };
    all.set(key, shared);
  }
  shared.users += 1;
  const held = shared;
  return {
    value: held.value,
    release: () => {
      held.users -= 1;
      if (held.users > 0) return;
      all.delete(key);
      stop(held.value);
    },
  };
}
