/**
 * What the engine is given and what it tells: the ports of one call (the
 * environment and directory configuration is read against, the clock, the
 * cancellation signal, an optional client factory) and the one event sink
 * for everything a person may want to see while it runs. The engine never
 * writes to a stream, reads `process`, or decides how an event is shown:
 * the CLI words events on stderr, the library hands them to its caller.
 */
import type { Pacing, WebsitesApi } from '../api/index.js';
import type { ProgressEvent } from '../apply/apply-plan.js';
import type { ConfigProblem } from '../model/desired-state.js';
import type { Plan } from '../model/plan.js';
import type { ClientSettings } from './connect.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type EngineEvent =
  /** A configuration warning (as loaded), or an error found while loading it (the call then fails). */
  | { type: 'problem'; problem: ConfigProblem }
  /** The client's notices (`warn`: a long wait, an unreadable setting) and request log (`debug`). */
  | { type: 'log'; level: LogLevel; message: string }
  /** The live sites were read: how many, and what it cost. `searched`: a targeted listing of that many domains. */
  | { type: 'listed'; count: number; requests: number; retries: number; throttled: number; searched?: number }
  /** The plan of one target, before anything is asked or written. */
  | { type: 'planned'; plan: Plan; target: string }
  /** The writes begin: `total` changes, then `requestsAfter` requests of read-back, at the client's `pacing`. */
  | { type: 'writing'; total: number; pacing: Pacing; requestsAfter: number }
  /** One change finished (or was skipped) during an apply of `total` changes. */
  | { type: 'change'; progress: ProgressEvent; total: number }
  /** A line for whoever runs it that fits no other event (a missing password named by file and line). */
  | { type: 'notice'; message: string };

export type EventSink = (event: EngineEvent) => void;

/** The ports of one engine call. */
export interface EngineContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Relative configuration, key and plan paths are resolved against it. */
  cwd: string;
  signal?: AbortSignal | undefined;
  /** Read once per call (`today` for expiring ignore rules): a long-running caller passes its own clock. */
  now?: (() => Date) | undefined;
  events: EventSink;
  /** The WebsitesApi for a connection (default: the HTTP client); a test or an embedder may give its own. */
  openApi?: ((settings: ClientSettings) => WebsitesApi) | undefined;
}

/** Today as YYYY-MM-DD in UTC, from the context's clock: the day `until` dates are compared with. */
export function todayOf(context: Pick<EngineContext, 'now'>): string {
  return (context.now?.() ?? new Date()).toISOString().slice(0, 10);
}

/** A sink that drops every event. */
export const ignoreEvents: EventSink = () => {};
