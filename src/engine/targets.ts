/**
 * Running a command on several targets (docs/config.md, Targets): which
 * targets `--target` chooses, the options each target's run gets (its files,
 * URL, key source, rate limit), and the domains every chosen target
 * configures. Each target runs the unchanged single-target
 * pipeline; the fan-out and the report around it are the caller's
 * (cli/target-runs.ts).
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { configRoot, DEFAULT_CONFIG_FILE, loadConfig, outsideRoot } from '../config/index.js';
import type { TargetDeclaration } from '../model/desired-state.js';
import { SitesyncError } from '../model/errors.js';
import { matchesGlob } from '../model/glob.js';
import { checkConnectionUrl } from './connect.js';
import type { EngineContext } from './context.js';
import { refuseUnmatchedSyncSites } from './prepare.js';
import { type ConnectionRequest, namesOf, type RunRequest } from './request.js';

/** The targets `--target` names (globs allowed), in declaration order; all when none is given. */
export function selectTargets(
  declared: readonly TargetDeclaration[],
  patterns: readonly string[],
  flag = '--target',
): TargetDeclaration[] {
  if (patterns.length === 0) return [...declared];
  const unmatched = patterns.filter((glob) => !declared.some((target) => matchesGlob(target.name, glob)));
  if (unmatched.length > 0) {
    const names = declared.map((target) => target.name).join(', ');
    throw new SitesyncError('usage', `${flag} ${unmatched.join(', ')} matches no target (declared: ${names})`);
  }
  return declared.filter((target) => patterns.some((glob) => matchesGlob(target.name, glob)));
}

/** `--target` given but the configuration declares no targets: a typo or the wrong directory. */
export function refuseTargetsWithout(shared: Pick<RunRequest, 'targets' | 'names'>): void {
  if (shared.targets.length === 0) return;
  throw new SitesyncError(
    'usage',
    `${namesOf(shared).target} ${shared.targets.join(', ')}: the configuration declares no targets (see docs/config.md, Targets)`,
  );
}

/** The targets declare their URL and key: a command-line one would silently apply to all of them. */
export function refuseConnectionFlags(shared: Pick<RunRequest, 'url' | 'apiKeyFile' | 'names'>): void {
  const names = namesOf(shared);
  const given = shared.url !== undefined ? names.url : shared.apiKeyFile !== undefined ? names.apiKeyFile : undefined;
  if (given === undefined) return;
  throw new SitesyncError(
    'usage',
    `${given} cannot be used when the configuration declares targets: each target has its own url and key_env or key_file`,
  );
}

/**
 * Every chosen target's URL pinned, before any target sends a request: a
 * configuration that names an origin the operator did not pin sends nothing
 * anywhere, to the pinned services neither (docs/workflows.md, "Threat model").
 */
export function refuseUnpinnedTargets(
  options: ConnectionRequest,
  chosen: readonly TargetDeclaration[],
  context: Pick<EngineContext, 'env' | 'cwd'>,
): void {
  for (const target of chosen) checkConnectionUrl(targetConnection(options, target, context.cwd), context);
}

/**
 * One target's options: the command's files (or websites.yaml) plus the
 * target's, relative to the file that declares them; the target's URL and key
 * source; --rate-limit over the target's rate_limit.
 */
export function targetOptions<T extends RunRequest>(shared: T, target: TargetDeclaration, cwd: string): T {
  const files = targetFiles(shared.files, target, cwd);
  return { ...targetConnection(shared, target, cwd), files, rootFiles: [...shared.files], target };
}

/** The target's URL (to be pinned) and key source, and --rate-limit over its rate_limit. */
export function targetConnection<T extends ConnectionRequest>(options: T, target: TargetDeclaration, cwd: string): T {
  const connection: T = {
    ...options,
    url: undefined,
    configUrl: { url: target.url, target: target.name },
    apiKeyFile: undefined,
    apiKeyEnv: undefined,
  };
  if ('file' in target.key) connection.apiKeyFile = keyFileOf(target, target.key.file, cwd);
  else connection.apiKeyEnv = target.key.env;
  if (options.rateLimit === undefined && target.rateLimit !== undefined) connection.rateLimit = target.rateLimit;
  return connection;
}

/** The files a target is loaded from: the command's (or websites.yaml), then the target's own. */
export function targetFiles(files: readonly string[], target: TargetDeclaration, cwd: string): string[] {
  const own = besideDeclaration(target, cwd);
  return [...(files.length > 0 ? files : [DEFAULT_CONFIG_FILE]), ...target.files.map(own)];
}

/** A target's `key_file`, beside its declaration and inside the configuration's root (config/root.ts). */
function keyFileOf(target: TargetDeclaration, file: string, cwd: string): string {
  const path = besideDeclaration(target, cwd)(file);
  const outside = outsideRoot(path, configRoot(dirname(resolve(cwd, target.declaredIn))));
  if (outside !== undefined) throw new SitesyncError('config', `target ${target.name}: key_file ${file} ${outside}`);
  return path;
}

/** A path written in `targets:` is relative to the declaring file's directory. */
function besideDeclaration(target: TargetDeclaration, cwd: string): (path: string) => string {
  const base = resolve(cwd, dirname(target.declaredIn));
  return (path) => (isAbsolute(path) ? path : resolve(base, path));
}

/**
 * With --only or --sync-write-only sites over targets: the domains every
 * chosen target configures (read offline), for each target's typo checks
 * (`spanDomains`), and a --sync-write-only site that none of them lists
 * refused once, before any target starts. When a target's configuration is
 * invalid, that target's run reports it and nothing is refused here.
 */
export async function spanDomains(
  shared: RunRequest,
  chosen: readonly TargetDeclaration[],
  syncSites: readonly string[],
  io: Pick<EngineContext, 'cwd' | 'env' | 'signal'>,
): Promise<string[] | undefined> {
  if (shared.only.length === 0 && syncSites.length === 0) return undefined;
  const domains: string[] = [];
  let complete = true;
  for (const target of chosen) {
    const files = targetFiles(shared.files, target, io.cwd);
    const loaded = await loadConfig({ files, cwd: io.cwd, env: io.env, secrets: 'check', signal: io.signal });
    if (loaded.state === undefined) complete = false;
    for (const site of loaded.state?.websites ?? []) domains.push(site.domain);
  }
  const names = chosen.map((target) => target.name).join(', ');
  if (complete) refuseUnmatchedSyncSites(syncSites, domains, namesOf(shared), ` of any chosen target (${names})`);
  return domains;
}
