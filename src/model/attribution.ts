/**
 * Who wanted each change (docs/plan-format.md, "Attribution"): the commit that
 * last changed a website's entry (or the defaults it inherits) since the
 * baseline, and for drift when the live side was first seen to differ. Plain
 * data next to a plan, never part of it: a plan is the same whoever made it,
 * so a saved plan, its fingerprint and its re-derivation never see these.
 */

/** The commit a change comes from. */
export interface Origin {
  /** The full commit id; `0000…` (40 zeros) for lines not committed yet. */
  commit: string;
  author: string;
  /** Author date, ISO 8601 with its offset as recorded. */
  date: string;
  /** The commit message's first line. */
  subject: string;
  /** The commit's page when the remote `origin` is on GitHub or GitLab. */
  url?: string;
}

/** When a drifted website was first seen to differ, and who saw it. */
export interface LiveSince {
  /** ISO 8601. */
  at: string;
  /** Who saw it: `watch` (its first check that did, read back from its journal). */
  source: 'watch';
}

export interface Attribution {
  /** By domain: the origin of each attributed change. */
  origins: ReadonlyMap<string, Origin>;
  /** By domain: drift's first sighting, when known. */
  liveSince?: ReadonlyMap<string, LiveSince>;
  /** Said once instead of origins: why there are none (a shallow clone without the history). */
  note?: string;
}

export const UNCOMMITTED = '0'.repeat(40);

/** `a1b2c3d`: the short form every output shows. */
export const shortCommit = (commit: string): string => commit.slice(0, 7);
