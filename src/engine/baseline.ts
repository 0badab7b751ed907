/**
 * The git baseline of `plan` and `apply` (docs/plan-format.md, "Baseline"):
 * which revision (`--baseline REF`, SITESYNC_BASELINE, or by default the tag
 * `apply --mark-applied` moves, when it exists), reading the same `-f` files
 * as they were there (`git show REF:path`, no checkout), loading them with the
 * configuration loader, and moving the tag after a verified apply.
 */
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, displayPath } from '../config/files.js';
import { type ConfigText, formatProblem, loadConfigTexts } from '../config/index.js';
import { forTarget } from '../config/targets.js';
import type { DesiredState, TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import type { Baseline, BaselineRef } from '../model/plan.js';
import type { EngineContext } from './context.js';
import { commitOf, dirtyPaths, fileAt, filesAt, insideWorkTree, kindAt, moveTag, validTagName } from './git.js';
import { targetFiles } from './targets.js';

/** Where configuration is read: the environment (SITESYNC_BASELINE, `${NAME}` references) and directory. */
type Where = Pick<EngineContext, 'env' | 'cwd'>;

/** The tag `apply --mark-applied` moves by default, and the default baseline when it exists. */
export const DEFAULT_BASELINE_TAG = 'sitesync-applied';

export interface BaselineFlags {
  /** `--baseline REF`; `false` for --no-baseline. */
  baseline?: string | boolean | undefined;
  /** apply's `--mark-applied TAG`: also the default baseline when that tag exists. */
  markApplied?: string | undefined;
}

interface Choice {
  ref: string;
  source: BaselineRef['source'];
  /** How the user named it, for messages. */
  label: string;
}

/** Where git runs: the directory of the first configuration file (or the directory given). */
function gitDir(files: readonly string[], cwd: string): string {
  const first = resolve(cwd, files[0] ?? DEFAULT_CONFIG_FILE);
  return statSync(first, { throwIfNoEntry: false })?.isDirectory() === true ? first : dirname(first);
}

async function choose(flags: BaselineFlags, io: Pick<EngineContext, 'env'>, dir: string): Promise<Choice | undefined> {
  if (flags.baseline === false) return undefined;
  if (typeof flags.baseline === 'string') return { ref: flags.baseline, source: 'option', label: '--baseline' };
  const fromEnv = io.env.SITESYNC_BASELINE;
  if (fromEnv !== undefined && fromEnv !== '') return { ref: fromEnv, source: 'option', label: 'SITESYNC_BASELINE' };
  const tag = flags.markApplied ?? DEFAULT_BASELINE_TAG;
  // No repository, no git, or no tag yet: no baseline, silently (as before baselines existed).
  if (!(await insideWorkTree(dir)) || (await commitOf(dir, `refs/tags/${tag}`)) === undefined) return undefined;
  return { ref: tag, source: 'default', label: 'the default baseline' };
}

/** The chosen revision, resolved to a commit once: every target of a run reads its files at the same commit. */
export interface BaselineAt {
  ref: BaselineRef;
  /** How the user named it, for messages. */
  label: string;
  /** Said after an error when the user did not ask for the baseline. */
  hint: string;
}

/**
 * The chosen revision resolved to a commit, or undefined without one. A
 * revision that does not exist, standard input, or no git work tree is one
 * error line naming it (exit 1).
 */
export async function resolveBaseline(
  files: readonly string[],
  flags: BaselineFlags,
  io: Where,
): Promise<BaselineAt | undefined> {
  const dir = gitDir(files, io.cwd);
  const choice = await choose(flags, io, dir);
  if (choice === undefined) return undefined;
  // A default the user did not ask for says how to turn it off.
  const hint = choice.source === 'default' ? ' (--no-baseline turns the default baseline off)' : '';
  const fail = failure({ ref: { ref: choice.ref }, label: choice.label, hint });
  if (files.some((file) => file === '-' || file === '/dev/stdin'))
    throw fail('the configuration comes from standard input, which has no git history');
  if (!(await insideWorkTree(dir))) throw fail(`${displayPath(dir, io.cwd)} is not in a git work tree`);
  const commit = await commitOf(dir, choice.ref);
  if (commit === undefined) throw fail(`no such revision in the git repository of ${displayPath(dir, io.cwd)}`);
  return { ref: { ref: choice.ref, commit, source: choice.source }, label: choice.label, hint };
}

/** One error line naming the revision as the user gave it. */
const failure =
  (at: { ref: Pick<BaselineRef, 'ref'>; label: string; hint: string }) =>
  (message: string): SitesyncError =>
    new SitesyncError('config', `${at.label} ${at.ref.ref}: ${message}${at.hint}`);

/** The configuration at the chosen revision, or undefined without one (errors: see resolveBaseline). */
export async function loadBaseline(
  files: readonly string[],
  flags: BaselineFlags,
  io: Where,
): Promise<Baseline | undefined> {
  const at = await resolveBaseline(files, flags, io);
  return at === undefined ? undefined : baselineFor({ files }, at, io);
}

/**
 * The baseline of one run at a resolved commit: its `-f` files there; for a
 * target's run (docs/config.md, Targets), the command's files plus the files
 * the target declared at that commit, with the target's settings at that
 * commit. A target not declared there is new since the baseline: no websites
 * and no pruning at REF, so all its changes are pending.
 */
export async function baselineFor(
  shared: {
    files: readonly string[];
    rootFiles?: readonly string[] | undefined;
    target?: TargetDeclaration | undefined;
  },
  at: BaselineAt | undefined,
  io: Where,
): Promise<Baseline | undefined> {
  if (at === undefined) return undefined;
  const { target } = shared;
  if (target === undefined) return baselineOf(await configAt(shared.files, at, io), at);
  const rootFiles = shared.rootFiles ?? [];
  const root = await configAt(rootFiles, at, io);
  const then = root.targets?.find((declared) => declared.name === target.name);
  if (then === undefined) {
    const policy = forTarget(root, target).policy;
    return { ref: { ...at.ref }, websites: [], policy: { ...policy, prune: false } };
  }
  // The paths the target declared at REF, relative to the same declaring file as today.
  const files = targetFiles(rootFiles, { ...target, files: then.files }, io.cwd);
  return baselineOf(forTarget(await configAt(files, at, io), then), at);
}

function baselineOf(state: DesiredState, at: BaselineAt): Baseline {
  return { ref: { ...at.ref }, websites: state.websites, policy: state.policy };
}

async function configAt(files: readonly string[], at: BaselineAt, io: Where): Promise<DesiredState> {
  const fail = failure(at);
  const sources = await readAt(files, io.cwd, at.ref.commit, at.ref.ref, fail);
  const loaded = loadConfigTexts(sources, io.env, { secrets: 'check' });
  if (loaded.state === undefined) {
    const first = loaded.errors[0];
    throw fail(`the configuration there is invalid${first === undefined ? '' : `: ${formatProblem(first)}`}`);
  }
  return loaded.state;
}

/** The same `-f` files (a directory: its *.yaml / *.yml files at REF), as text. */
async function readAt(
  files: readonly string[],
  cwd: string,
  commit: string,
  ref: string,
  fail: (message: string) => SitesyncError,
): Promise<ConfigText[]> {
  const sources: ConfigText[] = [];
  for (const arg of files.length > 0 ? files : [DEFAULT_CONFIG_FILE]) {
    const path = resolve(cwd, arg);
    const display = displayPath(path, cwd);
    const kind = await kindAt(dirname(path), commit, basename(path));
    if (kind === undefined) throw fail(`${display} does not exist at ${ref}`);
    const entries =
      kind === 'tree'
        ? (await filesAt(path, commit))
            .filter((name) => /\.ya?ml$/i.test(name))
            .sort()
            .map((name) => resolve(path, name))
        : [path];
    if (entries.length === 0) throw fail(`${display} has no .yaml or .yml files at ${ref}`);
    for (const entry of entries) {
      const text = await fileAt(dirname(entry), commit, basename(entry));
      if (text === undefined) throw fail(`${displayPath(entry, cwd)} cannot be read at ${ref}`);
      sources.push({ text: text, file: `${displayPath(entry, cwd)}@${ref}` });
    }
  }
  return sources;
}

export interface MarkTarget {
  dir: string;
  tag: string;
  /** HEAD of the configuration's repository when the apply started. */
  commit: string;
}

/**
 * Checks before anything is applied that `--mark-applied TAG` can be honoured:
 * a git work tree, a valid tag name, and configuration files that equal HEAD
 * (the tag names the commit that was applied; uncommitted edits would make it lie).
 */
export async function prepareMarkApplied(
  files: readonly string[],
  tag: string,
  io: Pick<EngineContext, 'cwd'>,
): Promise<MarkTarget> {
  const dir = gitDir(files, io.cwd);
  const fail = (message: string) => new SitesyncError('usage', `--mark-applied ${tag}: ${message}`);
  if (files.some((file) => file === '-' || file === '/dev/stdin'))
    throw fail('the configuration comes from standard input');
  if (!(await insideWorkTree(dir))) throw fail(`${displayPath(dir, io.cwd)} is not in a git work tree`);
  if (!(await validTagName(dir, tag))) throw fail('not a valid git tag name');
  const commit = await commitOf(dir, 'HEAD');
  if (commit === undefined) throw fail('the repository has no commit yet');
  const paths = (files.length > 0 ? files : [DEFAULT_CONFIG_FILE]).map((file) => resolve(io.cwd, file));
  const dirty = await dirtyPaths(dir, paths);
  if (dirty.length > 0) {
    throw fail(
      `the configuration differs from HEAD (${dirty.join(', ')}): commit it first, so the tag names what is applied`,
    );
  }
  return { dir, tag, commit: commit };
}

/** Moves the tag after a fully successful, read-back-verified apply; the line to print. */
export async function markApplied(target: MarkTarget): Promise<string> {
  const error = await moveTag(target.dir, target.tag, target.commit);
  if (error !== undefined) throw new SitesyncError('config', `--mark-applied ${target.tag}: ${error}`);
  return `tag ${target.tag} now marks ${target.commit.slice(0, 12)}, the applied commit (push it: git push --force origin refs/tags/${target.tag})`;
}
