/**
 * The Prometheus metrics of `sitesync watch` (prom-client, a registry of its
 * own, with the process defaults). Loaded only when wanted (metrics.ts):
 * prom-client is an optional dependency. Each target's series are created at zero
 * as soon as the target is known, so a dashboard or an alert rule never
 * misses a series that has not happened yet (controller-runtime does the same).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CHECK_RESULTS, HEAL_ACTIONS, HEAL_RESULTS, type WatchMetrics } from './metrics.js';
import { SITE_CLASSES, type SiteClass } from './port.js';

export class PrometheusMetrics implements WatchMetrics {
  readonly registry = new Registry();
  readonly #websites: Gauge<'target' | 'class'>;
  readonly #lastSuccess: Gauge<'target'>;
  readonly #checks: Counter<'target' | 'result'>;
  readonly #duration: Histogram<'target'>;
  readonly #requests: Counter<'target' | 'status'>;
  readonly #healed: Counter<'target' | 'action' | 'result'>;
  readonly #configValid: Gauge<'target'>;
  readonly #configLoads: Counter<'target'>;
  readonly #known = new Set<string>();
  /** The statuses each target's request counter has a series for. */
  readonly #statuses = new Map<string, Set<string>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.#websites = new Gauge({
      name: 'sitesync_websites',
      help: 'Websites of a target by class at the last successful check (in_sync, pending, drift, conflict, unmanaged).',
      labelNames: ['target', 'class'],
      registers,
    });
    this.#lastSuccess = new Gauge({
      name: 'sitesync_check_last_success_timestamp_seconds',
      help: 'Unix time of the last successful check of a target (0: none yet).',
      labelNames: ['target'],
      registers,
    });
    this.#checks = new Counter({
      name: 'sitesync_checks_total',
      help: 'Checks of a target by result.',
      labelNames: ['target', 'result'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'sitesync_check_duration_seconds',
      help: 'How long a check of a target took, waits for the request budget included.',
      labelNames: ['target'],
      buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600],
      registers,
    });
    this.#requests = new Counter({
      name: 'sitesync_api_requests_total',
      help: 'HTTP requests to a target, retries included, by status (error: no answer).',
      labelNames: ['target', 'status'],
      registers,
    });
    this.#healed = new Counter({
      name: 'sitesync_self_heal_changes_total',
      help: 'Changes self-heal made or attempted, by action and result.',
      labelNames: ['target', 'action', 'result'],
      registers,
    });
    this.#configValid = new Gauge({
      name: 'sitesync_target_config_valid',
      help: "1 while a target's own configuration files validate; 0 while it is checked against its last good state.",
      labelNames: ['target'],
      registers,
    });
    this.#configLoads = new Counter({
      name: 'sitesync_target_config_loads_total',
      help: "Times a target's files were read and validated (only when a file feeding it changed).",
      labelNames: ['target'],
      registers,
    });
  }

  know(target: string): void {
    if (this.#known.has(target)) return;
    this.#known.add(target);
    for (const each of SITE_CLASSES) this.#websites.set({ target, class: each }, 0);
    this.#lastSuccess.set({ target }, 0);
    for (const result of CHECK_RESULTS) this.#checks.inc({ target, result }, 0);
    // The statuses a rule is likely to name; others appear when first seen.
    for (const status of ['200', '429', 'error']) this.request(target, status, 0);
    this.#duration.zero({ target });
    this.#configValid.set({ target }, 1);
    this.#configLoads.inc({ target }, 0);
    for (const action of HEAL_ACTIONS)
      for (const result of HEAL_RESULTS) this.#healed.inc({ target, action, result }, 0);
  }

  forget(target: string): void {
    if (!this.#known.delete(target)) return;
    for (const each of SITE_CLASSES) this.#websites.remove({ target, class: each });
    this.#lastSuccess.remove({ target });
    for (const result of CHECK_RESULTS) this.#checks.remove({ target, result });
    this.#duration.remove({ target });
    this.#configValid.remove({ target });
    this.#configLoads.remove({ target });
    for (const status of this.#statuses.get(target) ?? []) this.#requests.remove({ target, status });
    this.#statuses.delete(target);
    for (const action of HEAL_ACTIONS)
      for (const result of HEAL_RESULTS) this.#healed.remove({ target, action, result });
  }

  checked(target: string, counts: Readonly<Record<SiteClass, number>>, atMs: number, seconds: number): void {
    this.know(target);
    for (const each of SITE_CLASSES) this.#websites.set({ target, class: each }, counts[each]);
    this.#lastSuccess.set({ target }, atMs / 1000);
    this.#checks.inc({ target, result: 'success' });
    this.#duration.observe({ target }, seconds);
  }

  failed(target: string, seconds: number): void {
    this.know(target);
    this.#checks.inc({ target, result: 'error' });
    this.#duration.observe({ target }, seconds);
  }

  skipped(target: string): void {
    this.know(target);
    this.#checks.inc({ target, result: 'skipped' });
  }

  configValid(target: string, valid: boolean): void {
    this.know(target);
    this.#configValid.set({ target }, valid ? 1 : 0);
  }

  configLoaded(target: string): void {
    this.know(target);
    this.#configLoads.inc({ target });
  }

  request(target: string, status: number | string, count = 1): void {
    const label = String(status);
    const seen = this.#statuses.get(target) ?? new Set<string>();
    this.#statuses.set(target, seen.add(label));
    this.#requests.inc({ target, status: label }, count);
  }

  healed(target: string, action: (typeof HEAL_ACTIONS)[number], result: (typeof HEAL_RESULTS)[number]): void {
    this.#healed.inc({ target, action, result });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
