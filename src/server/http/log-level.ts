/**
 * The request log's levels: each line has one (a 5xx or an unexpected error is
 * `error`, a 4xx `warn`, the rest `info`), and `--log-level` drops the lines
 * below it. No imports, so the CLI can name the levels without loading the server.
 */

export const LOG_LEVELS = ['info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LineLevel = Exclude<LogLevel, 'silent'>;

const RANK: Record<LogLevel, number> = { info: 0, warn: 1, error: 2, silent: 3 };

export function levelOfStatus(status: number): LineLevel {
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/** The sink with lines below `minimum` dropped; undefined when nothing would be written. */
export function atLevel(
  sink: ((line: string) => void) | undefined,
  minimum: LogLevel,
): ((line: string, level: LineLevel) => void) | undefined {
  if (!sink || minimum === 'silent') return undefined;
  return (line, level) => {
    if (RANK[level] >= RANK[minimum]) sink(line);
  };
}
