/**
 * Each target's drift count over the last 24 hours, for the status page's
 * chart: 96 buckets of 15 minutes, each the largest drift count a check saw
 * in it (a drift healed within the quarter hour still shows). Reads are
 * synchronous (`/status` is built from memory): replicas that coordinate
 * through PostgreSQL keep the same memory, written through to the database
 * and loaded when a replica takes a target over (coordination/postgres.ts).
 * Alone, a restart starts an empty chart.
 */

export const BUCKET_MS = 15 * 60_000;
export const BUCKETS = 96;

/** The chart's data: `counts[i]` covers [from + i × 15 min, from + (i + 1) × 15 min); null where no check succeeded. */
export interface DriftSeries {
  from: number;
  bucketMs: number;
  counts: (number | null)[];
}

export interface DriftHistory {
  record(target: string, at: number, drift: number): void;
  series(target: string, now: number): DriftSeries;
  forget(target: string): void;
}

/** Unrecorded buckets hold -1. */
interface Ring {
  /** The bucket number (epoch ms / BUCKET_MS) of the newest bucket written. */
  newest: number;
  values: Int32Array;
}

export class MemoryDriftHistory implements DriftHistory {
  readonly #rings = new Map<string, Ring>();

  /** True when the quarter hour's count changed (new, or larger than before): what a shared store needs to hear. */
  record(target: string, at: number, drift: number): boolean {
    const bucket = Math.floor(at / BUCKET_MS);
    let ring = this.#rings.get(target);
    if (ring === undefined) {
      ring = { newest: bucket, values: new Int32Array(BUCKETS).fill(-1) };
      this.#rings.set(target, ring);
    }
    if (bucket < ring.newest - BUCKETS + 1) return false; // older than the chart
    for (let skipped = ring.newest + 1; skipped <= bucket && skipped <= ring.newest + BUCKETS; skipped++)
      ring.values[skipped % BUCKETS] = -1;
    ring.newest = Math.max(ring.newest, bucket);
    const slot = bucket % BUCKETS;
    if ((ring.values[slot] ?? -1) >= drift) return false;
    ring.values[slot] = drift;
    return true;
  }

  series(target: string, now: number): DriftSeries {
    const last = Math.floor(now / BUCKET_MS);
    const first = last - BUCKETS + 1;
    const ring = this.#rings.get(target);
    const counts = Array.from({ length: BUCKETS }, (_, index) => {
      const bucket = first + index;
      if (ring === undefined || bucket > ring.newest || bucket <= ring.newest - BUCKETS) return null;
      const value = ring.values[bucket % BUCKETS] ?? -1;
      return value < 0 ? null : value;
    });
    return { from: first * BUCKET_MS, bucketMs: BUCKET_MS, counts };
  }

  forget(target: string): void {
    this.#rings.delete(target);
  }

  /** Replaces what is known of `target` with quarter hours loaded from elsewhere (bucket: epoch ms / BUCKET_MS). */
  load(target: string, buckets: readonly { bucket: number; drift: number }[]): void {
    this.#rings.delete(target);
    for (const { bucket, drift } of [...buckets].sort((a, b) => a.bucket - b.bucket))
      this.record(target, bucket * BUCKET_MS, drift);
  }
}
