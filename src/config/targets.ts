/**
 * `targets:` (docs/config.md, Targets): several installations driven from one
 * configuration. Resolved here from the file as written (names unique, one key
 * source each read from a SITESYNC_ variable, globs checked, no `${…}` in the URL); `forTarget` then
 * turns one target's loaded configuration into the state that target is
 * planned with: its own limits, scope and protection, and a digest that
 * covers them, so a saved plan notices when they change.
 */
import type { ConfigProblem, DesiredState, TargetDeclaration } from '../model/desired-state.js';
import { configDigest } from './digest.js';
import { hasReference, refusedVariable, URL_REFERENCE_MESSAGE } from './env.js';
import { problemAt } from './positions.js';
import type { Target } from './schema-types.js';
import { globs, type TopLevel } from './top-level.js';

export function resolveTargets(top: TopLevel, problems: ConfigProblem[]): TargetDeclaration[] | undefined {
  const located = top.targets;
  if (!located || !Array.isArray(located.value)) return undefined;
  const { source } = located;
  const seen = new Set<string>();
  const targets: TargetDeclaration[] = [];
  located.value.forEach((written: Target, index) => {
    const at = (...rest: (string | number)[]) => ['targets', index, ...rest];
    if (seen.has(written.name)) {
      problems.push(
        problemAt(source, at('name'), `"${written.name}" is already the name of another target`, { code: 'duplicate' }),
      );
    }
    seen.add(written.name);
    const hasEnv = written.key_env !== undefined;
    if (hasEnv === (written.key_file !== undefined)) {
      const message = hasEnv
        ? 'gives both key_env and key_file: say where the key comes from once'
        : 'needs key_env (an environment variable name) or key_file (a file holding the key); never the key itself';
      problems.push(problemAt(source, at(), message));
    }
    if (hasReference(written.url)) problems.push(problemAt(source, at('url'), URL_REFERENCE_MESSAGE));
    const refused =
      written.key_env === undefined
        ? undefined
        : refusedVariable(written.key_env, 'a key', `SITESYNC_${written.name.toUpperCase().replace(/-/g, '_')}_KEY`);
    if (refused !== undefined) problems.push(problemAt(source, at('key_env'), refused));
    const target: TargetDeclaration = {
      name: written.name,
      url: written.url,
      key: written.key_file !== undefined ? { file: written.key_file } : { env: written.key_env ?? '' },
      files: written.files ?? [],
      declaredIn: source.display,
    };
    if (written.rate_limit !== undefined) target.rateLimit = written.rate_limit;
    if (written.limits !== undefined) {
      target.limits = {};
      if (written.limits.max_deletes !== undefined) target.limits.maxDeletes = written.limits.max_deletes;
      if (written.limits.max_change_percent !== undefined)
        target.limits.maxChangePercent = written.limits.max_change_percent;
    }
    if (written.manage !== undefined) {
      target.manage = {};
      const include = globs(located, at('manage', 'include'), problems);
      const exclude = globs(located, at('manage', 'exclude'), problems);
      if (include !== undefined) target.manage.include = include;
      if (exclude !== undefined) target.manage.exclude = exclude;
    }
    const protect = globs(located, at('protect'), problems);
    if (protect !== undefined) target.protect = protect;
    if (written.unlisted_is_drift !== undefined) target.unlistedIsDrift = written.unlisted_is_drift;
    targets.push(target);
  });
  return targets;
}

/** The state one target is planned with: the target's own settings over the merged files', and its URL. */
export function forTarget(state: DesiredState, target: TargetDeclaration): DesiredState {
  const policy: DesiredState['policy'] = {
    ...state.policy,
    manage: { ...state.policy.manage, ...target.manage },
    protect: target.protect ?? state.policy.protect,
    limits: { ...state.policy.limits, ...target.limits },
  };
  // Absent unless on, as from the files: the digest of a target without it is unchanged.
  if (target.unlistedIsDrift === true) policy.unlistedIsDrift = true;
  else if (target.unlistedIsDrift === false) delete policy.unlistedIsDrift;
  const { targets: _all, ...rest } = state;
  return {
    ...rest,
    policy,
    apiUrl: target.url,
    digest: configDigest({ websites: state.websites, policy, apiUrl: target.url }),
  };
}
