/**
 * Admission of checks (`--concurrency N`): at most N checks at once, and at
 * most one per service, so targets on one installation still share its one
 * request budget in turn while targets on different installations run side
 * by side. Checks arrive over time (each at its slot of the interval), so
 * this is a gate, not a pool over a list (model/pool.ts): `run` queues the
 * work and settles when it has run, in arrival order per service.
 */

interface Waiting {
  service: string;
  start: () => void;
}

export class CheckGate {
  readonly #limit: number;
  readonly #busy = new Set<string>();
  readonly #queue: Waiting[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a whole number ≥ 1: ${limit}`);
    this.#limit = limit;
  }

  /** Checks running now. */
  get running(): number {
    return this.#busy.size;
  }

  /** Checks waiting for their service or a free slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Runs `work` once a slot and its service are free; `skip` is asked just
   * before it would start (a stop in between: it never starts, and `run`
   * resolves to undefined).
   */
  async run<T>(service: string, work: () => Promise<T>, skip: () => boolean = () => false): Promise<T | undefined> {
    await new Promise<void>((start) => {
      this.#queue.push({ service, start });
      this.#admit();
    });
    try {
      return skip() ? undefined : await work();
    } finally {
      this.#busy.delete(service);
      this.#admit();
    }
  }

  /** Starts every waiting check that may start, oldest first. */
  #admit(): void {
    for (let index = 0; index < this.#queue.length && this.#busy.size < this.#limit; ) {
      const next = this.#queue[index]!;
      if (this.#busy.has(next.service)) {
        index++;
        continue;
      }
      this.#queue.splice(index, 1);
      this.#busy.add(next.service);
      next.start();
    }
  }
}
