/**
 * What watch checks, read from the configuration like `plan` reads it: the
 * files given (or websites.yaml), each declared target with its own files,
 * URL and key (`--target` chooses), and the git baseline of each (the tag
 * `apply --mark-applied` moves, by default). Any problem is one message and
 * nothing is returned: the caller keeps the last good configuration.
 */
import type { ConnectionInput } from '../api/index.js';
import { formatProblem, loadConfig } from '../config/index.js';
import { forTarget } from '../config/targets.js';
import { baselineFor, resolveBaseline } from '../engine/baseline.js';
import { selectTargets, targetConnection, targetFiles } from '../engine/targets.js';
import type { DesiredState, TargetDeclaration } from '../model/desired-state.js';
import type { Baseline } from '../model/plan.js';

/** A configuration without `targets:` is watched as one target of this name. */
export const SINGLE_TARGET = 'default';

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
  state: DesiredState;
  baseline?: Baseline | undefined;
  connection: Omit<ConnectionInput, 'env' | 'cwd'> & { insecureHttp: boolean };
  /** The target's `rate_limit`: the service's budget is no higher. */
  rateLimit?: number | undefined;
  /** Changes when the URL or key source changes: the client is then opened again. */
  connectionKey: string;
  digest: string;
}

export async function loadTargets(source: TargetSource): Promise<LoadedTarget[]> {
  const root = await load(source.files, source);
  // Offline: git and the environment; only `env` and `cwd` are read (the engine's type names more).
  const io = { env: source.env, cwd: source.cwd } as Parameters<typeof resolveBaseline>[2];
  const at = await resolveBaseline(source.files, { baseline: source.baseline }, io);
  if (root.targets === undefined) {
    const connection = {
      insecureHttp: source.insecureHttp,
      ...(source.url !== undefined && { url: source.url }),
      ...(source.apiKeyFile !== undefined && { apiKeyFile: source.apiKeyFile }),
      ...(root.apiUrl !== undefined && { configUrl: { url: root.apiUrl } }),
    };
    const baseline = await baselineFor({ files: source.files }, at, io);
    return [loaded(SINGLE_TARGET, root, baseline, connection)];
  }
  if (source.url !== undefined || source.apiKeyFile !== undefined)
    throw new Error('--url and --api-key-file cannot be used when the configuration declares targets');
  const chosen = selectTargets(root.targets, source.targets);
  const targets: LoadedTarget[] = [];
  for (const target of chosen) {
    const files = targetFiles(source.files, target, source.cwd);
    const state = forTarget(await load(files, source), target);
    const baseline = await baselineFor({ files, rootFiles: source.files, target }, at, io);
    targets.push({
      ...loaded(target.name, state, baseline, connectionOf(target, source)),
      rateLimit: target.rateLimit,
    });
  }
  return targets;
}

async function load(files: string[], source: TargetSource): Promise<DesiredState> {
  const result = await loadConfig({
    files,
    cwd: source.cwd,
    env: source.env,
    secrets: source.heals ? 'resolve' : 'check',
  });
  if (result.state !== undefined) return result.state;
  const first = result.errors[0];
  const more = result.errors.length > 1 ? ` (and ${result.errors.length - 1} more)` : '';
  throw new Error(first === undefined ? 'the configuration is invalid' : `${formatProblem(first)}${more}`);
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

function loaded(
  name: string,
  state: DesiredState,
  baseline: Baseline | undefined,
  connection: LoadedTarget['connection'],
): LoadedTarget {
  const connectionKey = JSON.stringify(connection);
  const digest = `${name}:${state.digest}:${baseline?.ref.commit ?? '-'}:${connectionKey}`;
  return { name, state, baseline, connection, connectionKey, digest };
}
