/**
 * What the loop records for Prometheus, as a port: the series themselves
 * (prometheus.ts) need prom-client, an optional dependency (a CLI-only
 * install leaves it out), so they are loaded only when present; without it,
 * and without --metrics-addr, the loop records into nothing.
 */
import { SitesyncError } from '../model/errors.js';
import type { SiteClass } from './port.js';

/** `skipped`: the target's previous check was still running when its next slot came. */
export const CHECK_RESULTS = ['success', 'error', 'skipped'] as const;
export const HEAL_RESULTS = ['applied', 'failed', 'skipped'] as const;
export const HEAL_ACTIONS = ['create', 'update', 'delete'] as const;

export interface WatchMetrics {
  /** Creates the target's series at zero (once). */
  know(target: string): void;
  /** Removes a target's series (it left the configuration). */
  forget(target: string): void;
  checked(target: string, counts: Readonly<Record<SiteClass, number>>, atMs: number, seconds: number): void;
  failed(target: string, seconds: number): void;
  skipped(target: string): void;
  /** Whether the target's own files validate now (1) or it runs on its last good state (0). */
  configValid(target: string, valid: boolean): void;
  /** The target's files were read and validated again (something feeding it changed). */
  configLoaded(target: string): void;
  request(target: string, status: number | string, count?: number): void;
  healed(target: string, action: (typeof HEAL_ACTIONS)[number], result: (typeof HEAL_RESULTS)[number]): void;
  /** The text exposition format, for GET /metrics. */
  text(): Promise<string>;
  readonly contentType: string;
}

const nothing: WatchMetrics = {
  know: () => {},
  forget: () => {},
  checked: () => {},
  failed: () => {},
  skipped: () => {},
  configValid: () => {},
  configLoaded: () => {},
  request: () => {},
  healed: () => {},
  text: async () => '',
  contentType: 'text/plain',
};

/** The Prometheus series when prom-client is installed; without it, nothing, unless they are `required`. */
export async function loadMetrics(required: boolean): Promise<WatchMetrics> {
  try {
    const { PrometheusMetrics } = await import('./prometheus.js');
    return new PrometheusMetrics();
  } catch (error) {
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && String(error).includes("'prom-client'");
    if (!missing) throw error;
    if (!required) return nothing;
    throw new SitesyncError(
      'usage',
      '--metrics-addr needs the package prom-client, which a CLI-only install (--omit=optional) leaves out: reinstall sitesync without --omit=optional',
    );
  }
}
