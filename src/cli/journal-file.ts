/**
 * The apply journal on disk (`--journal FILE`): one JSON line per event,
 * written synchronously so that a killed process leaves every line it reached;
 * each line is redacted as a last line of defence (a plan holds no secret).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Journal } from '../apply/journal.js';
import { errnoInWords } from '../model/errno.js';
import { SitesyncError } from '../model/errors.js';
import { redact } from '../model/secret.js';

export interface JournalFileOptions {
  clock?: () => Date;
  /**
   * Gets each line that could not be written (a full disk): the record of a
   * write to the service must not vanish, so the CLI puts it on stderr.
   */
  lost?: (line: string) => void;
}

/**
 * Appends to `path` (created if missing): several runs can share one journal.
 * With targets, every line names its `target`, so journals read side by side
 * (or concatenated) still say which installation each line is about. A line
 * that cannot be written throws a readable error naming the file (an apply
 * then starts nothing new: docs/apply.md, "Journal") and goes to `lost`,
 * except `begin`, which records no write.
 */
export function openJournal(path: string, target?: string, options: JournalFileOptions = {}): Journal {
  const { clock = () => new Date(), lost } = options;
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SitesyncError('usage', `cannot open the journal ${path}: ${reason}`);
  }
  return {
    record(entry) {
      const line = redact(
        JSON.stringify({ time: clock().toISOString(), ...(target !== undefined && { target }), ...entry }),
      );
      try {
        writeSync(fd, `${line}\n`);
      } catch (error) {
        if (entry.event !== 'begin') lost?.(line);
        throw new SitesyncError('usage', `cannot write the journal ${path}: ${errnoInWords(error)}`);
      }
    },
    close() {
      closeSync(fd);
    },
  };
}

/** The CLI's journal: lines that cannot be written go to stderr, whole. */
export function openJournalFor(io: { stderr: { write(text: string): void } }, path: string, target?: string): Journal {
  return openJournal(path, target, {
    lost: (line) => io.stderr.write(`sitesync: not written to the journal: ${line}\n`),
  });
}
