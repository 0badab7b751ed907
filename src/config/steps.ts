/**
 * Work in steps: a generator pauses (`yield`) between the steps of a long
 * load; `runSteps` runs them at once, `runStepsYielding` lets the event loop
 * in at each pause (a signal, a listing that runs meanwhile).
 */
import { SitesyncError } from '../model/errors.js';

export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Rejects with SitesyncError('interrupted') when `signal` aborts: a SIGTERM
 * during a long check (a file of 100,000 unknown keys) is seen after the step
 * in progress, not after the whole load.
 */
export async function runStepsYielding<T>(steps: Generator<void, T>, signal: AbortSignal | undefined): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new SitesyncError('interrupted', 'interrupted while checking the configuration');
  }
}
