/**
 * Change attribution (docs/plan-format.md, "Attribution"): each planned
 * change of a configured website is named with the commit that last changed
 * its entry (or the defaults it inherits for the fields that change) since
 * the baseline. One `git blame --porcelain` per configuration file, started
 * as soon as the configuration is loaded so it runs while the sites are
 * listed; never one git call per site. A shallow clone without the history
 * says so once and attributes nothing; no git, or no work tree, attributes
 * nothing silently. Git reads only: never a checkout, never a hook.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { STDIN_DISPLAY } from '../config/files.js';
import { type Attribution, type Origin, UNCOMMITTED } from '../model/attribution.js';
import type { DesiredState } from '../model/desired-state.js';
import type { BaselineRef, Change, Plan } from '../model/plan.js';
import { CONFIG_FIELD_NAMES } from '../model/website.js';
import { gitDir } from './baseline.js';
import {
  type Blame,
  type BlamedCommit,
  defaultsRanges,
  entryRanges,
  keysIn,
  type LineRange,
  parsePorcelain,
} from './blame.js';
import { commitUrl } from './commit-url.js';
import type { EngineContext } from './context.js';
import { git } from './git.js';
import { REMOTE } from './git-remote.js';

/** Commits ranked by history (newest first): beyond these, commit time decides. */
const MAX_ORDERED = 10_000;

/** What the blames found, before the plan is known. */
export interface Blamed {
  /** By file as the loader displays it: its text and blame. */
  files: Map<string, BlamedFile>;
  /** Commits since the baseline, newest first (0): which of two is the later one. */
  ranks?: Map<string, number>;
  url?: (commit: string) => string | undefined;
  note?: string;
}

/**
 * The blames of one run by file and baseline: targets share the root files,
 * and each file is blamed once whatever the number of targets.
 */
export type BlameMemo = Map<string, Promise<BlamedFile | undefined>>;

/** A configuration file's text, by line, and its blame. */
interface BlamedFile {
  lines: string[];
  blame: Blame;
}

/**
 * Starts the blames of the configuration's files (undefined outside a git
 * work tree). `baseline`: lines at or before it are not changes since.
 */
export async function blameConfiguration(
  state: DesiredState,
  baseline: BaselineRef | undefined,
  context: Pick<EngineContext, 'cwd'>,
  memo: BlameMemo = new Map(),
): Promise<Blamed | undefined> {
  if (state.files.length === 0 || state.files.includes(STDIN_DISPLAY)) return undefined;
  const paths = state.files.map((file) => resolve(context.cwd, file));
  const dir = gitDir(paths, context.cwd);
  const where = await git(dir, ['rev-parse', '--is-inside-work-tree', '--is-shallow-repository']);
  const [inside, shallowAnswer] = where.stdout.trim().split('\n');
  if (!where.ok || inside !== 'true') return undefined;
  const head = baseline?.commit;
  const shallow = shallowAnswer === 'true';
  // Enough history when the baseline and HEAD meet in it (a base branch that moved on meets HEAD at their merge base).
  if (shallow && (head === undefined || !(await git(dir, ['merge-base', head, 'HEAD'])).ok)) {
    return {
      files: new Map(),
      note: `this clone is shallow and lacks the history${head === undefined ? '' : ` since the baseline ${head.slice(0, 12)}`}, so no change is attributed to a commit (fetch the history: fetch-depth: 0, or git fetch --unshallow)`,
    };
  }
  const files = new Map<string, BlamedFile>();
  await Promise.all(
    state.files.map(async (file, i) => {
      const path = paths[i]!;
      const key = `${path}\0${head ?? ''}`;
      let blaming = memo.get(key);
      if (blaming === undefined) {
        blaming = blameFile(dir, path, head);
        memo.set(key, blaming);
      }
      const blamed = await blaming;
      if (blamed !== undefined) files.set(file, blamed);
    }),
  );
  const blamed: Blamed = { files };
  // Only what the blames need: an order when two commits compete, a link when one is named.
  const named = new Set<string>();
  for (const { blame } of files.values())
    for (const [commit, about] of blame.commits) if (!about.boundary && commit !== UNCOMMITTED) named.add(commit);
  const [ranks, remote] = await Promise.all([
    named.size > 1 ? historyOrder(dir, head) : undefined,
    named.size === 0 ? undefined : git(dir, ['remote', 'get-url', REMOTE]),
  ]);
  if (ranks !== undefined) blamed.ranks = ranks;
  if (remote?.ok) blamed.url = (commit) => commitUrl(remote.stdout.trim(), commit);
  return blamed;
}

async function blameFile(dir: string, path: string, head: string | undefined): Promise<BlamedFile | undefined> {
  // Moved lines (-M) and lines moved from another file in the same commit (-C) keep the commit that wrote them.
  const range = head === undefined ? [] : [`^${head}`];
  const out = await git(dir, ['blame', '--porcelain', '--no-textconv', '--root', '-M', '-C', ...range, '--', path]);
  const text = out.ok ? readText(path) : undefined;
  return text === undefined ? undefined : { lines: text.split('\n'), blame: parsePorcelain(out.stdout) };
}

/** Commits since the baseline, newest first by history, not by date: dates lie (rebases, clocks, late merges). */
async function historyOrder(dir: string, head: string | undefined): Promise<Map<string, number>> {
  const since = head === undefined ? [] : [`^${head}`];
  const out = await git(dir, ['rev-list', '--topo-order', `--max-count=${MAX_ORDERED}`, 'HEAD', ...since]);
  const ranks = new Map<string, number>();
  if (out.ok) for (const [i, commit] of out.stdout.trim().split('\n').entries()) ranks.set(commit, i);
  return ranks;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
}

/**
 * The origin of each create and update of a configured website that is not
 * drift (the configuration did not change for drift: nothing to name).
 */
export function attribute(plan: Plan, state: DesiredState, blamed: Blamed | undefined): Attribution | undefined {
  if (blamed === undefined) return undefined;
  if (blamed.note !== undefined) return { origins: new Map(), note: blamed.note };
  const sites = new Map(state.websites.map((site) => [site.domain, site]));
  const starts = new Map<string, number[]>();
  for (const site of state.websites) {
    if (site.source === undefined) continue;
    const list = starts.get(site.source.file) ?? [];
    starts.set(site.source.file, list);
    list.push(site.source.line);
  }
  const ranges = new Map<string, (start: number) => LineRange>();
  for (const [file, { lines }] of blamed.files) ranges.set(file, entryRanges(lines, starts.get(file) ?? []));
  const defaultsFile = [...blamed.files].find(([, { lines }]) => lines.some((line) => /^defaults\s*:/.test(line)));
  const defaults =
    defaultsFile === undefined ? undefined : { file: defaultsFile[0], keys: defaultsRanges(defaultsFile[1].lines) };
  const origins = new Map<string, Origin>();
  for (const change of plan.changes) {
    if (change.action === 'delete' || change.class === 'drift') continue;
    const source = sites.get(change.domain)?.source;
    const file = source === undefined ? undefined : blamed.files.get(source.file);
    const entry = source === undefined ? undefined : ranges.get(source.file)?.(source.line);
    if (file === undefined || entry === undefined || source === undefined) continue;
    const spans: [string, LineRange][] = [[source.file, entry]];
    if (change.action === 'update' && defaults !== undefined) {
      const own = keysIn(file.lines, entry);
      for (const name of changedNames(change)) {
        const inherited = defaults.keys.get(name);
        if (!own.has(name) && inherited !== undefined) spans.push([defaults.file, inherited]);
      }
    }
    const origin = newest(spans, blamed);
    if (origin !== undefined) origins.set(change.domain, origin);
  }
  return { origins };
}

function changedNames(change: Exclude<Change, { action: 'delete' }>): string[] {
  return change.fields.map((field) =>
    field.field === 'password' ? 'password_version' : CONFIG_FIELD_NAMES[field.field],
  );
}

/** The latest commit (by committer time; lines not committed yet win) among the lines, boundary lines left out. */
function newest(spans: readonly [string, LineRange][], blamed: Blamed): Origin | undefined {
  let best: { id: string; commit: BlamedCommit } | undefined;
  for (const [file, range] of spans) {
    const blame = blamed.files.get(file)?.blame;
    if (blame === undefined) continue;
    for (let line = range.from; line <= range.to; line++) {
      const id = blame.lines[line];
      const commit = id === undefined ? undefined : blame.commits.get(id);
      if (id === undefined || commit === undefined || commit.boundary) continue;
      if (best === undefined || later({ id, commit }, best, blamed.ranks)) best = { id, commit };
    }
  }
  if (best === undefined) return undefined;
  const { id, commit } = best;
  const origin: Origin = {
    commit: id,
    author: id === UNCOMMITTED ? '' : commit.author,
    date: id === UNCOMMITTED ? '' : isoDate(commit.authorTime, commit.authorTz),
    subject: id === UNCOMMITTED ? 'not committed yet' : commit.summary,
  };
  const url = id === UNCOMMITTED ? undefined : blamed.url?.(id);
  if (url !== undefined) origin.url = url;
  return origin;
}

type Candidate = { id: string; commit: BlamedCommit };

/** Lines not committed yet are the newest; then history order; commit time for what history does not rank. */
function later(a: Candidate, than: Candidate, ranks: Map<string, number> | undefined): boolean {
  if (than.id === UNCOMMITTED) return false;
  if (a.id === UNCOMMITTED) return true;
  const [rank, other] = [ranks?.get(a.id), ranks?.get(than.id)];
  if (rank !== undefined && other !== undefined) return rank < other;
  return a.commit.committerTime > than.commit.committerTime;
}

/** `2026-11-26T14:03:00+01:00` from git's epoch seconds and `+0100`. */
function isoDate(seconds: number, tz: string): string {
  const sign = tz.startsWith('-') ? -1 : 1;
  const minutes = sign * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(3, 5)));
  const local = new Date((seconds + minutes * 60) * 1000).toISOString().slice(0, 19);
  return `${local}${tz.slice(0, 3)}:${tz.slice(3, 5)}`;
}
