/** The planner's policy from the configuration's policy plus command-line choices. Pure. */
import type { ConfigPolicy } from '../model/desired-state.js';
import type { PlanPolicy } from '../model/plan.js';

export interface CliPolicy {
  only?: readonly string[];
  skip?: readonly string[];
  syncWriteOnly?: boolean;
  /** --unlisted-is-drift: on here, or by `unlisted_is_drift: true` in the configuration. */
  unlistedIsDrift?: boolean;
}

export function policyFromConfig(config: ConfigPolicy, cli: CliPolicy = {}): PlanPolicy {
  const policy: PlanPolicy = {
    prune: config.prune,
    manage: { include: [...config.manage.include], exclude: [...config.manage.exclude] },
    protect: [...config.protect],
    limits: { maxDeletes: config.limits.maxDeletes, maxChangePercent: config.limits.maxChangePercent },
    only: [...(cli.only ?? [])],
    skip: [...(cli.skip ?? [])],
    syncWriteOnly: cli.syncWriteOnly ?? false,
  };
  if (config.unlistedIsDrift === true || cli.unlistedIsDrift === true) policy.unlistedIsDrift = true;
  return policy;
}
