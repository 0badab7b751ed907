/**
 * The apply journal (`--journal FILE`): one JSON line per event, written
 * synchronously so that a killed process leaves every line it reached. It says
 * what was planned, started, succeeded, failed or skipped, and when; never a
 * secret (passwords are not in plans, and each line is redacted as a last line
 * of defence).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { SitesyncError } from '../model/errors.js';
import type { Action, FieldChange } from '../model/plan.js';
import { redact } from '../model/secret.js';

export type JournalEvent = 'begin' | 'planned' | 'started' | 'succeeded' | 'failed' | 'skipped' | 'end';

export interface JournalEntry {
  event: JournalEvent;
  action?: Action;
  domain?: string;
  id?: number | null;
  /** On `planned`: the field changes (values of non-secret fields only). */
  fields?: FieldChange[];
  reason?: string;
  code?: string;
  /** On `begin` and `end`: run-level facts (target URL, counts). */
  [key: string]: unknown;
}

export interface Journal {
  record(entry: JournalEntry): void;
  close(): void;
}

/** Appends to `path` (created if missing): several runs can share one journal. */
export function openJournal(path: string, clock: () => Date = () => new Date()): Journal {
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SitesyncError('usage', `cannot open the journal ${path}: ${reason}`);
  }
  return {
    record(entry) {
      const line = JSON.stringify({ time: clock().toISOString(), ...entry });
      writeSync(fd, `${redact(line)}\n`);
    },
    close() {
      closeSync(fd);
    },
  };
}

/** A journal that keeps entries in memory (tests, and runs without --journal). */
export function memoryJournal(): Journal & { entries: JournalEntry[] } {
  const entries: JournalEntry[] = [];
  return {
    entries,
    record: (entry) => {
      entries.push(entry);
    },
    close: () => {},
  };
}
