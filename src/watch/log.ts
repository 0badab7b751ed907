/**
 * The watch's log: one line per event, `--log-format json` (one JSON object a
 * line: time, level, msg and the event's fields, as log collectors expect)
 * or text (`time level msg key=value…`). Every line passes `redact`, the last
 * line of defence against a secret.
 */
import { redact } from '../model/secret.js';

export type Level = 'error' | 'warn' | 'info' | 'debug';
export type Fields = Readonly<Record<string, unknown>>;
export type Logger = (level: Level, message: string, fields?: Fields) => void;

const RANK: Readonly<Record<Level, number>> = { error: 0, warn: 1, info: 2, debug: 3 };

export function createLogger(options: {
  format: 'json' | 'text';
  level: Level;
  write: (line: string) => void;
  now: () => number;
}): Logger {
  return (level, message, fields = {}) => {
    if (RANK[level] > RANK[options.level]) return;
    const time = new Date(options.now()).toISOString();
    const line =
      options.format === 'json'
        ? JSON.stringify({ time, level, msg: message, ...fields })
        : `${time} ${level} ${message}${Object.entries(fields)
            .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
            .join('')}`;
    options.write(`${redact(line)}\n`);
  };
}
