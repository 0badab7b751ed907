/**
 * What watch checks, read from the configuration like `plan` reads it (the
 * files given or websites.yaml, each declared target with its own files, URL
 * and key, `--target` choosing; each with its git baseline), and read again
 * incrementally: a file is read again only when its stamp (modification and
 * change time in nanoseconds, size, inode) changed, and a target is loaded
 * again only when a file that feeds it did (the root files feed every
 * target), its declaration did or the baseline commit moved. The root files
 * are parsed once per change and shared by every target's load.
 *
 * A root that does not load is one error (the caller keeps everything it
 * had); a target whose own files do not load keeps its last good state and
 * carries the error, so only that target is marked.
 */
import { statSync } from 'node:fs';
import type { ConnectionInput } from '../api/index.js';
import { listConfigFiles, readConfigFile } from '../config/files.js';
import { formatProblem, loadConfig } from '../config/index.js';
import { loadParsedConfig, type ParsedConfigFile, parseConfigFile } from '../config/parsed.js';
import { forTarget } from '../config/targets.js';
import { type BaselineAt, baselineFor, resolveBaseline } from '../engine/baseline.js';
import { withPolicyProblems } from '../engine/policies.js';
import { selectTargets, targetConnection, targetFiles } from '../engine/targets.js';
import {
  type ConfigProblem,
  type DesiredState,
  SINGLE_TARGET,
  type TargetDeclaration,
} from '../model/desired-state.js';
import type { Baseline } from '../model/plan.js';
import { SiteCompactor } from './compact-state.js';

export interface TargetSource {
  files: string[];
  /** `--target` names or globs; empty: every declared target. */
  targets: string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Without `targets:`: --url and --api-key-file (else the environment, and `api.url`). */
  url?: string | undefined;
  apiKeyFile?: string | undefined;
  insecureHttp: boolean;
  /** `--baseline REF`, or false for --no-baseline; undefined: the default tag when it exists. */
  baseline?: string | false | undefined;
  /** Self-heal on: passwords are resolved (a heal may send one); off: only checked. */
  heals: boolean;
}

export interface LoadedTarget {
  name: string;
  /** Declared under `targets:` (false: the configuration's one target, named SINGLE_TARGET): policies see the name. */
  declared: boolean;
  state: DesiredState;
  baseline?: Baseline | undefined;
  connection: Omit<ConnectionInput, 'env' | 'cwd'> & { insecureHttp: boolean };
  /** The target's `rate_limit`: the service's budget is no higher. */
  rateLimit?: number | undefined;
  /** Changes when the URL or key source changes: the client is then opened again. */
  connectionKey: string;
}

/** One target after a reload: its state (new, or the last good one) and its own error, if any. */
export interface TargetLoad {
  name: string;
  /** Absent only when its files have never loaded. */
  loaded?: LoadedTarget;
  error?: string;
  /** The declared URL (for a target with no state yet, its service). */
  url?: string;
  /** Its files were read and validated this time. */
  reloaded: boolean;
}

interface Entry {
  key: string;
  loaded?: LoadedTarget;
  error?: string;
}

type Io = Parameters<typeof resolveBaseline>[2];

export class TargetLoader {
  readonly #compactor = new SiteCompactor();
  #root: { key: string; state: DesiredState; parsed: ParsedConfigFile[] } | undefined;
  /** The root's error at these stamps: not parsed again until a file changes. */
  #rootError: { key: string; error: Error } | undefined;
  #entries = new Map<string, Entry>();

  /**
   * Every chosen target, loaded again where something that feeds it changed; rejects when the root does not load.
   * `signal` stops the root's load at its next pause (a second SIGTERM; a 4 MB file never holds the loop long).
   */
  async load(source: TargetSource, signal?: AbortSignal): Promise<{ targets: TargetLoad[]; changed: boolean }> {
    const root = await this.#loadRoot(source, signal);
    // Offline: git and the environment; only `env` and `cwd` are read (the engine's type names more).
    const io = { env: source.env, cwd: source.cwd } as Io;
    const at = await resolveBaseline(source.files, { baseline: source.baseline }, io);
    const commit = at?.ref.commit ?? '-';
    const entries = new Map<string, Entry>();
    let changed = this.#entries.size === 0;
    const loads: TargetLoad[] = [];
    if (root.state.targets === undefined) {
      const connection = {
        insecureHttp: source.insecureHttp,
        ...(source.url !== undefined && { url: source.url }),
        ...(source.apiKeyFile !== undefined && { apiKeyFile: source.apiKeyFile }),
        ...(root.state.apiUrl !== undefined && { configUrl: { url: root.state.apiUrl } }),
      };
      const key = JSON.stringify([root.key, commit, connection]);
      const entry = await this.#reuse(SINGLE_TARGET, key, async () => {
        const baseline = await baselineFor({ files: source.files }, at, io);
        return this.#loaded(SINGLE_TARGET, false, root.state, baseline, connection);
      });
      changed ||= entry !== this.#entries.get(SINGLE_TARGET);
      entries.set(SINGLE_TARGET, entry);
      loads.push(loadOf(SINGLE_TARGET, entry, this.#entries.get(SINGLE_TARGET)));
    } else {
      if (source.url !== undefined || source.apiKeyFile !== undefined)
        throw new Error('--url and --api-key-file cannot be used when the configuration declares targets');
      for (const target of selectTargets(root.state.targets, source.targets)) {
        const files = targetFiles(source.files, target, source.cwd);
        const key = JSON.stringify([root.key, target, stamps(files, source.cwd), commit]);
        const entry = await this.#reuse(target.name, key, () => this.#loadTarget(source, target, { files, at, io }));
        changed ||= entry !== this.#entries.get(target.name);
        entries.set(target.name, entry);
        loads.push({ ...loadOf(target.name, entry, this.#entries.get(target.name)), url: target.url });
      }
    }
    changed ||= [...this.#entries.keys()].some((name) => !entries.has(name));
    this.#entries = entries;
    return { targets: loads, changed };
  }

  /** The entry as it was when nothing feeding it changed; else loaded again (an error keeps the last good state). */
  async #reuse(name: string, key: string, load: () => Promise<LoadedTarget>): Promise<Entry> {
    const known = this.#entries.get(name);
    if (known?.key === key) return known;
    try {
      return { key, loaded: await load() };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { key, ...(known?.loaded !== undefined && { loaded: known.loaded }), error: message };
    }
  }

  async #loadRoot(
    source: TargetSource,
    signal: AbortSignal | undefined,
  ): Promise<{ key: string; state: DesiredState; parsed: ParsedConfigFile[] }> {
    const key = stamps(source.files, source.cwd);
    if (this.#root?.key === key) return this.#root;
    if (this.#rootError?.key === key) throw this.#rootError.error;
    let state: DesiredState;
    let texts: readonly string[] = [];
    try {
      state = await load(source.files, source, signal, (read) => {
        texts = read;
      });
    } catch (error) {
      this.#rootError = { key, error: error as Error };
      throw error;
    }
    // Each target's load starts from the texts just validated, parsed again without their `targets:` (thousands of entries).
    const files = listConfigFiles(source.files, source.cwd).files;
    if (files.length !== texts.length)
      throw new Error('the configuration files changed while they were read; read again next cycle');
    const parsed = files.map((file, index) => parseConfigFile(texts[index] ?? '', file.display, ['targets']));
    this.#root = { key, state, parsed };
    return this.#root;
  }

  async #loadTarget(
    source: TargetSource,
    target: TargetDeclaration,
    where: { files: string[]; at: BaselineAt | undefined; io: Io },
  ): Promise<LoadedTarget> {
    // Listed after the root files, so its own files are held to the configuration's root (config/root.ts).
    const listing = listConfigFiles(where.files, source.cwd);
    const problems: ConfigProblem[] = [...listing.errors];
    const parsed = [...(this.#root?.parsed ?? [])];
    for (const file of listing.files.slice(parsed.length)) {
      const read = await readConfigFile(file);
      if ('text' in read) parsed.push(parseConfigFile(read.text, file.display));
      else if ('error' in read) problems.push(read.error);
    }
    if (problems.length > 0) throw new Error(messageOf(problems));
    const result = withPolicyProblems(
      loadParsedConfig(parsed, source.env, { secrets: source.heals ? 'resolve' : 'check', targetsOmitted: true }),
    );
    if (result.state === undefined) throw new Error(messageOf(result.errors));
    const state = forTarget(result.state, target);
    const baseline = await baselineFor({ files: where.files, rootFiles: source.files, target }, where.at, where.io);
    return {
      ...this.#loaded(target.name, true, state, baseline, connectionOf(target, source)),
      rateLimit: target.rateLimit,
    };
  }

  #loaded(
    name: string,
    declared: boolean,
    state: DesiredState,
    baseline: Baseline | undefined,
    connection: LoadedTarget['connection'],
  ): LoadedTarget {
    const { targets: _declared, ...rest } = state;
    return {
      name,
      declared,
      state: { ...rest, websites: this.#compactor.compact(state.websites), warnings: [] },
      baseline:
        baseline === undefined ? undefined : { ...baseline, websites: this.#compactor.compact(baseline.websites) },
      connection,
      connectionKey: JSON.stringify(connection),
    };
  }
}

const loadOf = (name: string, entry: Entry, before: Entry | undefined): TargetLoad => ({
  name,
  reloaded: entry !== before,
  ...(entry.loaded !== undefined && { loaded: entry.loaded }),
  ...(entry.error !== undefined && { error: entry.error }),
});

/** What the files named by `args` are now: their paths and stamps (a file or directory listing that fails is part of it). */
function stamps(args: readonly string[], cwd: string): string {
  const listing = listConfigFiles(args, cwd);
  const files = listing.files.map((file) => {
    const stat = statSync(file.path, { bigint: true, throwIfNoEntry: false });
    return stat === undefined
      ? `${file.path}:missing`
      : `${file.path}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.size}:${stat.ino}`;
  });
  return JSON.stringify([files, listing.errors.map((error) => error.message)]);
}

async function load(
  files: string[],
  source: TargetSource,
  signal?: AbortSignal,
  onRead?: (texts: readonly string[]) => void,
): Promise<DesiredState> {
  const result = withPolicyProblems(
    await loadConfig({
      files,
      cwd: source.cwd,
      env: source.env,
      secrets: source.heals ? 'resolve' : 'check',
      signal,
      ...(onRead !== undefined && { onRead }),
    }),
  );
  if (result.state !== undefined) return result.state;
  throw new Error(messageOf(result.errors));
}

function messageOf(errors: readonly ConfigProblem[]): string {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return first === undefined ? 'the configuration is invalid' : `${formatProblem(first)}${more}`;
}

function connectionOf(target: TargetDeclaration, source: TargetSource): LoadedTarget['connection'] {
  const none: Parameters<typeof targetConnection>[0] = {
    url: undefined,
    apiKeyFile: undefined,
    insecureHttp: source.insecureHttp,
    rateLimit: undefined,
    timeout: undefined,
    logLevel: 'warn',
  };
  const options = targetConnection(none, target, source.cwd);
  return {
    insecureHttp: source.insecureHttp,
    ...(options.configUrl !== undefined && { configUrl: options.configUrl }),
    ...(options.apiKeyFile !== undefined && { apiKeyFile: options.apiKeyFile }),
    ...(options.apiKeyEnv !== undefined && { apiKeyEnv: options.apiKeyEnv }),
  };
}
