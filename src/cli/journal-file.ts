/**
 * The apply journal on disk (`--journal FILE`): one JSON line per event,
 * written synchronously so that a killed process leaves every line it reached;
 * each line is redacted as a last line of defence (a plan holds no secret).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Journal } from '../apply/journal.js';
import { SitesyncError } from '../model/errors.js';
import { redact } from '../model/secret.js';

/**
 * Appends to `path` (created if missing): several runs can share one journal.
 * With targets, every line names its `target`, so journals read side by side
 * (or concatenated) still say which installation each line is about.
 */
export function openJournal(path: string, target?: string, clock: () => Date = () => new Date()): Journal {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SitesyncError('usage', `cannot open the journal ${path}: ${reason}`);
  }
  return {
    record(entry) {
      const line = JSON.stringify({ time: clock().toISOString(), ...(target !== undefined && { target }), ...entry });
      writeSync(fd, `${redact(line)}\n`);
    },
    close() {
      closeSync(fd);
    },
  };
}
