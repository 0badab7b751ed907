/**
 * The apply journal's port: what an apply records, as data (what was planned,
 * started, succeeded, failed or skipped). The file behind `--journal FILE` is
 * the CLI's (cli/journal-file.ts); here only the entry shape and an in-memory
 * journal. Never a secret: passwords are not in plans.
 */
import type { Action, FieldChange } from '../model/plan.js';

/** `drift`: watch's first check that saw a site drift (`seen`), read back by `plan --live-since`. */
export type JournalEvent = 'begin' | 'planned' | 'started' | 'succeeded' | 'failed' | 'skipped' | 'end' | 'drift';

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
