/**
 * The git baseline of `plan` and `apply` (docs/plan-format.md, "Baseline"):
 * which revision (`--baseline REF`, SITESYNC_BASELINE, or by default the tag
 * `apply --mark-applied` moves, when it exists), reading the same `-f` files
 * as they were there (`git show REF:path`, no checkout), loading them with the
 * configuration loader. Which commit REF is: ./baseline-resolve.ts; the tag
 * an apply moves: ./mark-applied.ts.
 */
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, displayPath } from '../config/files.js';
import { type ConfigText, formatProblem, loadConfigTexts } from '../config/index.js';
import { forTarget } from '../config/targets.js';
import { DEFAULT_POLICY, type DesiredState, type TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import type { Baseline, BaselineRef } from '../model/plan.js';
import { ancestorOf, appliedTag, behindApplied, type Found, findCommit, origin } from './baseline-resolve.js';
import type { EngineContext } from './context.js';
import { fileAt, filesAt, insideWorkTree, kindAt } from './git.js';
import { targetFiles } from './targets.js';

/** Where configuration is read: the environment (SITESYNC_BASELINE, `${NAME}` references) and directory. */
type Io = Pick<EngineContext, 'env' | 'cwd'>;

/** The tag `apply --mark-applied` moves by default, and the default baseline when it exists. */
export const DEFAULT_BASELINE_TAG = 'sitesync-applied';

export interface BaselineFlags {
  /** `--baseline REF`; `false` for --no-baseline. */
  baseline?: string | boolean | undefined;
  /** apply's `--mark-applied TAG`: also the default baseline when that tag exists. */
  markApplied?: string | undefined;
}

/** Where git runs: the directory of the first configuration file (or the directory given). */
export function gitDir(files: readonly string[], cwd: string): string {
  const first = resolve(cwd, files[0] ?? DEFAULT_CONFIG_FILE);
  return statSync(first, { throwIfNoEntry: false })?.isDirectory() === true ? first : dirname(first);
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
 * The chosen revision resolved to a commit (fetched from origin when the
 * clone lacks it), or undefined without one: `--baseline REF` or
 * SITESYNC_BASELINE, else the applied tag when it exists here or on origin.
 * A revision found nowhere, standard input, no git work tree, or a checkout
 * behind the applied commit is one error line naming it (exit 1).
 */
export async function resolveBaseline(
  files: readonly string[],
  flags: BaselineFlags,
  io: Io,
): Promise<BaselineAt | undefined> {
  if (flags.baseline === false) return undefined;
  const dir = gitDir(files, io.cwd);
  const tag = flags.markApplied ?? DEFAULT_BASELINE_TAG;
  const fromEnv = io.env.SITESYNC_BASELINE === '' ? undefined : io.env.SITESYNC_BASELINE;
  const given = typeof flags.baseline === 'string' ? flags.baseline : fromEnv;
  if (given === undefined) {
    // No repository, no git, or no tag yet (here or on origin): no baseline, silently (as before baselines existed).
    if (!(await insideWorkTree(dir))) return undefined;
    const applied = await appliedTag(dir, tag);
    if (applied === undefined) return undefined;
    const at = {
      ref: { ref: tag, commit: applied.commit, source: 'default' as const, ...origin(applied) },
      label: 'the default baseline',
      hint: ' (--no-baseline turns the default baseline off)',
    };
    await refuseBehind(dir, at, applied);
    return at;
  }
  const label = typeof flags.baseline === 'string' ? '--baseline' : 'SITESYNC_BASELINE';
  const at = await resolveGiven(files, dir, { ref: given, label }, io);
  if (given === tag) {
    await refuseBehind(dir, at, at.ref);
    return at;
  }
  return appliedInstead(dir, at, tag);
}

/** A revision the user named (or a saved plan recorded), in the clone or fetched from origin. */
async function resolveGiven(
  files: readonly string[],
  dir: string,
  named: { ref: string; label: string },
  io: Io,
): Promise<BaselineAt> {
  const at = { ref: { ref: named.ref, commit: '', source: 'option' as const }, label: named.label, hint: '' };
  const fail = failure(at);
  if (files.some((file) => file === '-' || file === '/dev/stdin'))
    throw fail('the configuration comes from standard input, which has no git history');
  if (!(await insideWorkTree(dir))) throw fail(`${displayPath(dir, io.cwd)} is not in a git work tree`);
  const found = await findCommit(dir, named.ref);
  if ('error' in found)
    throw fail(`no such revision in the git repository of ${displayPath(dir, io.cwd)}: ${found.error}`);
  return { ...at, ref: { ...at.ref, commit: found.commit, ...origin(found) } };
}

async function refuseBehind(dir: string, at: BaselineAt, applied: Found): Promise<void> {
  const behind = await behindApplied(dir, applied, `the applied commit ${at.ref.ref}`);
  if (behind !== undefined) throw failure(at)(behind);
}

/**
 * `--baseline REF` ahead of the applied tag (merged work that a failed or
 * stale apply left unapplied): classified against the applied commit, so
 * that work is pending, not drift, and its write-only changes are sent.
 */
async function appliedInstead(dir: string, at: BaselineAt, tag: string): Promise<BaselineAt> {
  const applied = await appliedTag(dir, tag);
  if (applied === undefined || applied.commit === at.ref.commit) return at;
  if (!(await ancestorOf(dir, applied.commit, at.ref.commit))) return at;
  const insteadOf = { ref: at.ref.ref, commit: at.ref.commit };
  return { ...at, ref: { ref: tag, commit: applied.commit, source: 'option', ...origin(applied), insteadOf } };
}

/** The baseline a saved plan recorded, at its exact commit (fetched from origin when the clone lacks it). */
export async function recordedBaseline(
  files: readonly string[],
  recorded: BaselineRef,
  planFile: string,
  io: Io,
): Promise<BaselineAt> {
  const label = `the baseline ${recorded.ref} recorded in`;
  const at = await resolveGiven(
    files,
    gitDir(files, io.cwd),
    { ref: recorded.commit, label: `${label} ${planFile},` },
    io,
  );
  // Where the commit comes from now (fetched or not), not where it came from when the plan was made.
  const { fetchedFrom } = at.ref;
  return {
    ...at,
    ref: { ref: recorded.ref, commit: at.ref.commit, source: recorded.source, ...(fetchedFrom && { fetchedFrom }) },
  };
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
  io: Io,
): Promise<Baseline | undefined> {
  const at = await resolveBaseline(files, flags, io);
  return at === undefined ? undefined : baselineFor({ files }, at, io);
}

/**
 * The baseline of one run at a resolved commit: its `-f` files there; for a
 * target's run (docs/config.md, Targets), the command's files plus the files
 * the target declared at that commit, with the target's settings at that
 * commit. A target not declared there is new since the baseline: no websites
 * and no pruning at REF, so all its changes are pending. So is a configuration
 * none of whose files existed at REF (the first pull request).
 */
export async function baselineFor(
  shared: {
    files: readonly string[];
    rootFiles?: readonly string[] | undefined;
    target?: TargetDeclaration | undefined;
  },
  at: BaselineAt | undefined,
  io: Io,
): Promise<Baseline | undefined> {
  if (at === undefined) return undefined;
  const { target } = shared;
  if (target === undefined) {
    const state = await configAt(shared.files, at, io);
    return state === undefined ? firstConfiguration(at) : baselineOf(state, at);
  }
  const rootFiles = shared.rootFiles ?? [];
  const root = await configAt(rootFiles, at, io);
  if (root === undefined) return firstConfiguration(at);
  const then = root.targets?.find((declared) => declared.name === target.name);
  if (then === undefined) {
    const policy = forTarget(root, target).policy;
    return { ref: { ...at.ref }, websites: [], policy: { ...policy, prune: false } };
  }
  // The paths the target declared at REF, relative to the same declaring file as today.
  const files = targetFiles(rootFiles, { ...target, files: then.files }, io.cwd);
  const state = await configAt(files, at, io);
  return state === undefined ? firstConfiguration(at) : baselineOf(forTarget(state, then), at);
}

function baselineOf(state: DesiredState, at: BaselineAt): Baseline {
  return { ref: { ...at.ref }, websites: state.websites, policy: state.policy };
}

/** No configuration at REF: no websites and no pruning there, so every change is pending (and the plan says why). */
function firstConfiguration(at: BaselineAt): Baseline {
  return { ref: { ...at.ref, noConfiguration: true }, websites: [], policy: { ...DEFAULT_POLICY } };
}

/** The configuration at REF; undefined when none of its files existed there. */
async function configAt(files: readonly string[], at: BaselineAt, io: Io): Promise<DesiredState | undefined> {
  const fail = failure(at);
  const sources = await readAt(files, io.cwd, at.ref.commit, at.ref.ref, fail);
  if (sources === undefined) return undefined;
  const loaded = loadConfigTexts(sources, io.env, { secrets: 'check' });
  if (loaded.state === undefined) {
    const first = loaded.errors[0];
    throw fail(`the configuration there is invalid${first === undefined ? '' : `: ${formatProblem(first)}`}`);
  }
  return loaded.state;
}

/**
 * The same `-f` files (a directory: its *.yaml / *.yml files at REF), as text;
 * undefined when none of them existed at REF. Some but not all is an error.
 */
async function readAt(
  files: readonly string[],
  cwd: string,
  commit: string,
  ref: string,
  fail: (message: string) => SitesyncError,
): Promise<ConfigText[] | undefined> {
  const args = files.length > 0 ? files : [DEFAULT_CONFIG_FILE];
  const paths = args.map((arg) => resolve(cwd, arg));
  const kinds = await Promise.all(paths.map((path) => kindAt(dirname(path), commit, basename(path))));
  if (kinds.every((kind) => kind === undefined)) return undefined;
  const sources: ConfigText[] = [];
  for (const [index, path] of paths.entries()) {
    const kind = kinds[index];
    const display = displayPath(path, cwd);
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
