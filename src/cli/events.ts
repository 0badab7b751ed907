/**
 * The engine's events as stderr lines: configuration problems as
 * `file:line:col: …`, client notices as `warn: …`, the request log and the
 * listing's cost as `debug: …` at --log-level debug. A command's view may take
 * events over while it draws (apply's progress line), through `route`.
 */

import { formatProblem } from '../config/index.js';
import { logs } from '../engine/connect.js';
import type { EngineContext, EngineEvent, EventSink, LogLevel } from '../engine/context.js';
import { printable } from '../model/text.js';
import type { Io } from './io.js';

export interface CliContext extends EngineContext {
  /** Events a view handles itself before the default lines (return true when handled). */
  route: { view?: ((event: EngineEvent) => boolean) | undefined; notice: (line: string) => void };
}

/** The engine's ports from the process edge: environment, directory, signal, clock and client from `io`, events to stderr. */
export function cliContext(io: Io, logLevel: LogLevel): CliContext {
  const line = (text: string) => io.stderr.write(`${text}\n`);
  const route: CliContext['route'] = { notice: line };
  const events: EventSink = (event) => {
    if (route.view?.(event) === true) return;
    const text = lineOf(event, logLevel);
    if (text === undefined) return;
    if (event.type === 'log' && event.level === 'warn') route.notice(text);
    else line(text);
  };
  return { env: io.env, cwd: io.cwd, signal: io.signal, now: io.now, openApi: io.openApi, events, route };
}

function lineOf(event: EngineEvent, logLevel: LogLevel): string | undefined {
  switch (event.type) {
    case 'problem':
      return formatProblem(event.problem);
    case 'log':
      // The client's lines quote the service (domains, values): shown printable, as every server string is.
      return logs(logLevel, event.level) ? `${event.level}: ${printable(event.message)}` : undefined;
    case 'listed': {
      if (!logs(logLevel, 'debug')) return undefined;
      const what = event.searched === undefined ? 'websites' : `websites named by --only (${event.searched} searched)`;
      return `debug: listed ${event.count} ${what} in ${event.requests} requests (${event.retries} retries, ${event.throttled} throttled)`;
    }
    case 'notice':
      return event.message;
    default:
      return undefined;
  }
}
