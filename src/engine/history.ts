/**
 * `sitesync history DOMAIN` (docs/plan-format.md, "History"): a website's
 * desired settings through the commits that changed them, newest first, each
 * with the applies that carried it to the service: whether the applied tag's
 * commit contains it, and the apply journals' lines for the site. Git reads
 * only, the same few calls whatever the history's length: one `git log` of the
 * configuration files, one `git cat-file --batch` for every version of them
 * (each commit's and its first parent's), and the applied tag resolved as
 * plan resolves it (origin asked for it, a shallow clone deepened to reach it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { listConfigFiles } from '../config/files.js';
import { loadConfigTexts } from '../config/index.js';
import { canonicalDomain } from '../model/domain.js';
import { SitesyncError } from '../model/errors.js';
import type { AppliedBy, DesiredVersion, History, HistoryEntry } from '../model/history.js';
import { CONFIG_FIELD_NAMES, type DesiredWebsite, SETTING_NAMES } from '../model/website.js';
import { DEFAULT_BASELINE_TAG, gitDir } from './baseline.js';
import { appliedTag } from './baseline-resolve.js';
import type { EngineContext } from './context.js';
import { blobsAt, git, insideWorkTree } from './git.js';

/** Commits read at most (the newest). */
const MAX_COMMITS = 500;

export async function siteHistory(
  written: string,
  request: { files: string[]; journals: string[]; tag?: string | undefined },
  context: Pick<EngineContext, 'cwd' | 'env'>,
): Promise<History> {
  const domain = canonicalDomain(written);
  const listing = listConfigFiles(request.files, context.cwd);
  const first = listing.errors[0];
  if (first !== undefined) throw new SitesyncError('config', first.message);
  const paths = listing.files.map((file) => file.path);
  const dir = gitDir(paths, context.cwd);
  if (!(await insideWorkTree(dir)))
    throw new SitesyncError('usage', `history needs the configuration in a git work tree; ${dir} is not in one`);
  const names = paths.map((path) => `./${relative(dir, path)}`);
  const log = await git(dir, [
    'log',
    '--topo-order',
    '--no-merges',
    `--max-count=${MAX_COMMITS + 1}`,
    '--format=%H%x1f%P%x1f%an%x1f%aI%x1f%s',
    '--',
    ...names,
  ]);
  if (!log.ok) throw new SitesyncError('config', `git log: ${log.stderr.trim().split('\n')[0]}`);
  const commits = log.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [commit = '', parents = '', author = '', date = '', subject = ''] = line.split('\x1f');
      return { commit, parent: parents.split(' ')[0] || undefined, author, date, subject };
    });
  const truncated = commits.length > MAX_COMMITS;
  const read = commits.slice(0, MAX_COMMITS);
  const versions = await versionsOf(dir, names, read, domain, context.env);
  const tagName = request.tag ?? DEFAULT_BASELINE_TAG;
  const tag = await appliedTag(dir, tagName);
  const carried = new Set<string>();
  if (tag !== undefined) {
    const out = await git(dir, ['rev-list', '--no-merges', tag.commit, '--', ...names]);
    for (const commit of out.stdout.split('\n')) if (commit !== '') carried.add(commit);
  }
  const entries: HistoryEntry[] = [];
  for (const [i, commit] of read.entries()) {
    const [after, before] = versions[i]!;
    if (JSON.stringify(after) === JSON.stringify(before)) continue;
    entries.push({
      commit: commit.commit,
      author: commit.author,
      date: commit.date,
      subject: commit.subject,
      desired: after ?? null,
      inAppliedTag: carried.has(commit.commit),
      applies: [],
    });
  }
  attachApplies(entries, domain, request.journals, context.cwd);
  return {
    domain,
    files: listing.files.map((file) => file.display),
    ...(tag !== undefined && { appliedTag: { name: tagName, commit: tag.commit } }),
    entries,
    truncated,
  };
}

/** Each commit's version of the site and its first parent's (undefined: not configured there). */
async function versionsOf(
  dir: string,
  names: readonly string[],
  commits: readonly { commit: string; parent?: string | undefined }[],
  domain: string,
  env: EngineContext['env'],
): Promise<[DesiredVersion | undefined, DesiredVersion | undefined][]> {
  const wanted = commits.flatMap(({ commit, parent }) => [
    ...names.map((name) => `${commit}:${name}`),
    ...names.map((name) => (parent === undefined ? 'missing-parent' : `${parent}:${name}`)),
  ]);
  const blobs = await blobsAt(dir, wanted);
  const cache = new Map<string, DesiredVersion | undefined>();
  const versionAt = (texts: (string | undefined)[]): DesiredVersion | undefined => {
    const key = texts.map((text) => text ?? '\0').join('\0\0');
    if (!cache.has(key)) cache.set(key, desiredIn(texts, names, domain, env));
    return cache.get(key);
  };
  return commits.map((_, i) => {
    const at = i * names.length * 2;
    return [
      versionAt(blobs.slice(at, at + names.length)),
      versionAt(blobs.slice(at + names.length, at + 2 * names.length)),
    ];
  });
}

/** The site as configured by these files' texts, loaded as the loader loads them; undefined when not listed. */
function desiredIn(
  texts: readonly (string | undefined)[],
  names: readonly string[],
  domain: string,
  env: EngineContext['env'],
): DesiredVersion | undefined {
  const sources = texts.flatMap((text, i) => (text === undefined ? [] : [{ text, file: names[i]!.slice(2) }]));
  if (sources.length === 0 || !sources.some((source) => source.text.toLowerCase().includes(domain))) return undefined;
  const loaded = loadConfigTexts(sources, env, { secrets: 'check' });
  // An invalid configuration says nothing about the site: shown as such, never as a removal.
  if (loaded.state === undefined) return { invalid: loaded.errors[0]?.message ?? 'the configuration was invalid' };
  const site = loaded.state.websites.find((each) => each.domain === domain);
  return site === undefined ? undefined : versionOf(site);
}

function versionOf(site: DesiredWebsite): DesiredVersion {
  const version: DesiredVersion = {};
  for (const name of SETTING_NAMES) version[CONFIG_FIELD_NAMES[name]] = site.settings[name];
  if (site.ignoreChanges.length > 0)
    version.ignore_changes = site.ignoreChanges.map((field) => CONFIG_FIELD_NAMES[field]);
  if (site.password !== undefined) version.password = 'configured';
  if (site.passwordVersion !== undefined) version.password_version = site.passwordVersion;
  return version;
}

/**
 * The journal lines that wrote the site (`succeeded`), each on the entry of
 * the commit its run recorded, else on the newest entry dated before it.
 */
function attachApplies(entries: HistoryEntry[], domain: string, journals: readonly string[], cwd: string): void {
  for (const journal of journals) {
    const path = resolve(cwd, journal);
    if (!existsSync(path)) throw new SitesyncError('usage', `--journal ${journal}: no such file`);
    let run: Record<string, unknown> = {};
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (entry.event === 'begin') run = entry;
      if (entry.event !== 'succeeded' || typeof entry.domain !== 'string' || canonicalDomain(entry.domain) !== domain)
        continue;
      const time = String(entry.time ?? run.time ?? '');
      const applied: AppliedBy = { time, action: String(entry.action ?? ''), journal };
      for (const key of ['url', 'target', 'commit'] as const)
        if (typeof run[key] === 'string') applied[key] = run[key] as string;
      const by =
        entries.find((each) => applied.commit !== undefined && each.commit === applied.commit) ??
        entries.find((each) => Date.parse(each.date) <= Date.parse(time));
      by?.applies.push(applied);
    }
  }
}
