/**
 * `git blame --porcelain` read into data, and the line ranges of a
 * configuration file that attribution blames: each website's entry (from the
 * start lines the loader keeps to the next entry) and each key of `defaults:`.
 * Text in, data out; the git call is ./attribution.ts's.
 */

export interface BlamedCommit {
  author: string;
  /** Author time, seconds since the epoch, and its offset (`+0200`). */
  authorTime: number;
  authorTz: string;
  /** Committer time: which of two commits is the later one. */
  committerTime: number;
  summary: string;
  /** At or before the baseline (`^BASELINE`): not a change since. */
  boundary: boolean;
}

export interface Blame {
  /** The commit of each line, 1-based (index 0 unused). */
  lines: string[];
  commits: Map<string, BlamedCommit>;
}

const HEADER = /^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$/;

export function parsePorcelain(text: string): Blame {
  const lines: string[] = [];
  const commits = new Map<string, BlamedCommit>();
  let current: BlamedCommit | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) continue;
    const header = HEADER.exec(line);
    if (header !== null) {
      const [, commit, final] = header as unknown as [string, string, string];
      lines[Number(final)] = commit;
      current = commits.get(commit);
      if (current === undefined) {
        current = { author: '', authorTime: 0, authorTz: '+0000', committerTime: 0, summary: '', boundary: false };
        commits.set(commit, current);
      }
      continue;
    }
    if (current === undefined) continue;
    const space = line.indexOf(' ');
    const key = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (key === 'author') current.author = value;
    else if (key === 'author-time') current.authorTime = Number(value);
    else if (key === 'author-tz') current.authorTz = value;
    else if (key === 'committer-time') current.committerTime = Number(value);
    else if (key === 'summary') current.summary = value;
    else if (key === 'boundary') current.boundary = true;
  }
  return { lines, commits };
}

/** Lines `from` to `to`, 1-based, inclusive. */
export interface LineRange {
  from: number;
  to: number;
}

const TOP_LEVEL = /^[^\s#-]|^---|^\.\.\./;
const BLANK_OR_COMMENT = /^\s*(#.*)?$/;

/**
 * The lines of the entry that starts at a line, given the start line of every
 * entry of the file: up to the next entry, or to the next top-level key after
 * the last; blank and comment lines at the end belong to what follows. Marks
 * the starts once; each lookup reads only its own entry's lines.
 */
export function entryRanges(lines: readonly string[], starts: readonly number[]): (start: number) => LineRange {
  const isStart = new Uint8Array(lines.length + 2);
  for (const start of starts) if (start < isStart.length) isStart[start] = 1;
  return (start) => {
    let end = start;
    while (end < lines.length && isStart[end + 1] === 0 && !TOP_LEVEL.test(lines[end]!)) end += 1;
    while (end > start && BLANK_OR_COMMENT.test(lines[end - 1] ?? '')) end -= 1;
    return { from: start, to: end };
  };
}

/** The last line before the next top-level key after line `start` (or the file's last line). */
function blockEnd(lines: readonly string[], start: number): number {
  for (let i = start; i < lines.length; i++) if (TOP_LEVEL.test(lines[i]!)) return i;
  return lines.length;
}

/** The keys written in an entry (its own settings, as opposed to those it inherits from defaults). */
export function keysIn(lines: readonly string[], range: LineRange): Set<string> {
  const keys = new Set<string>();
  for (let i = range.from; i <= range.to; i++) {
    const key = /^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:/.exec(lines[i - 1] ?? '');
    if (key !== null) keys.add(key[1]!);
  }
  return keys;
}

/** The lines of each key of the top-level `defaults:` block, when the file has one. */
export function defaultsRanges(lines: readonly string[]): Map<string, LineRange> {
  const ranges = new Map<string, LineRange>();
  const start = lines.findIndex((line) => /^defaults\s*:/.test(line));
  if (start === -1) return ranges;
  const end = blockEnd(lines, start + 1);
  let indent: number | undefined;
  let open: { key: string; from: number } | undefined;
  const close = (to: number) => {
    if (open !== undefined) ranges.set(open.key, { from: open.from, to });
  };
  for (let i = start + 1; i < end; i++) {
    const key = /^(\s+)([A-Za-z_][\w-]*)\s*:/.exec(lines[i]!);
    if (key === null) continue;
    indent ??= key[1]!.length;
    if (key[1]!.length !== indent) continue;
    close(i);
    open = { key: key[2]!, from: i + 1 };
  }
  close(end);
  return ranges;
}
