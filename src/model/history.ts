/** `sitesync history DOMAIN`'s result: made by engine/history.ts, shown by render/history.ts. */

/** The site as configured at a commit: websites.yaml's names, resolved (own, defaults, the service's). */
export type DesiredVersion = Record<string, unknown>;

export interface AppliedBy {
  /** From an apply journal: when the site was written, and the run's target and commit when recorded. */
  time: string;
  action: string;
  url?: string;
  target?: string;
  commit?: string;
  journal: string;
}

export interface HistoryEntry {
  commit: string;
  author: string;
  date: string;
  subject: string;
  /** The site as the commit left it; null when the commit removed it. */
  desired: DesiredVersion | null;
  /** The applied tag's commit contains this commit: an apply carried it (or a later one replaced it). */
  inAppliedTag: boolean;
  applies: AppliedBy[];
}

export interface History {
  domain: string;
  files: string[];
  /** The applied tag and its commit, when it exists. */
  appliedTag?: { name: string; commit: string };
  entries: HistoryEntry[];
  /** More commits touched the files than were read. */
  truncated: boolean;
}
