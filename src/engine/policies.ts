/**
 * The configuration's policies in the pipeline: compiled once per loaded
 * state (a rule that does not compile is a configuration problem at its
 * file:line:column, for validate, plan and apply alike), and evaluated over
 * each plan the engine makes (src/plan/policies/ does both, purely).
 */
import type { LoadResult } from '../config/index.js';
import type { ConfigProblem, DesiredState } from '../model/desired-state.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import { blockingViolations, type PolicyReport } from '../model/policies.js';
import { scopeOf } from '../plan/index.js';
import {
  appliesTo,
  type CompiledPolicy,
  compilePolicies,
  evaluatePolicies,
  inMatch,
  policiesDigest,
} from '../plan/policies/index.js';

export interface Policies {
  compiled: CompiledPolicy[];
  digest: string;
}

const compiledStates = new WeakMap<DesiredState, { policies?: Policies; problems: ConfigProblem[] }>();

function compiledOf(state: DesiredState): { policies?: Policies; problems: ConfigProblem[] } {
  const known = compiledStates.get(state);
  if (known !== undefined) return known;
  const declarations = state.policies ?? [];
  const { policies, problems } = compilePolicies(declarations);
  const result =
    declarations.length === 0
      ? { problems: [] }
      : {
          policies: { compiled: policies, digest: policiesDigest(declarations) },
          problems: problems.map(
            ({ declaration, offset, message }): ConfigProblem => ({
              severity: 'error',
              code: 'invalid_value',
              path: declaration.rulePath ?? declaration.name,
              message,
              ...(declaration.locate && { source: declaration.locate(offset) }),
            }),
          ),
        };
  compiledStates.set(state, result);
  return result;
}

/** The rules that do not compile, as configuration problems (none without policies). */
export function policyProblems(state: DesiredState): ConfigProblem[] {
  return compiledOf(state).problems;
}

/** A loaded configuration whose rules do not all compile is invalid: its problems join the others. */
export function withPolicyProblems(loaded: LoadResult): LoadResult {
  const problems = loaded.state === undefined ? [] : policyProblems(loaded.state);
  if (problems.length === 0) return loaded;
  const { state: _invalid, ...rest } = loaded;
  return { ...rest, errors: [...loaded.errors, ...problems] };
}

/** The compiled policies of a state whose rules all compile (loadDesiredState refuses any other); undefined without. */
export function policiesOf(state: DesiredState): Policies | undefined {
  return compiledOf(state).policies;
}

/**
 * What the policies say of `plan`, recorded in it (`plan.policies`); nothing
 * without policies. `target`: the target's name, with `targets:`.
 */
export function withPolicies(plan: Plan, state: DesiredState, policy: PlanPolicy, target?: string): Plan {
  const report = policyReport(plan, state, policy, target);
  if (report !== undefined) plan.policies = report;
  return plan;
}

export function policyReport(
  plan: Plan,
  state: DesiredState,
  policy: PlanPolicy,
  target?: string,
): PolicyReport | undefined {
  const policies = policiesOf(state);
  if (policies === undefined) return undefined;
  const { selected } = scopeOf(policy);
  return evaluatePolicies(policies.compiled, policies.digest, { websites: state.websites, plan, target, selected });
}

/** The names of the policies that apply to a target (every one without targets), in declaration order. */
export function policyNames(state: DesiredState, target?: string): { name: string; severity: 'error' | 'warning' }[] {
  return (policiesOf(state)?.compiled ?? [])
    .filter((policy) => appliesTo(policy.declaration, target))
    .map(({ declaration }) => ({ name: declaration.name, severity: declaration.severity }));
}

/**
 * The changes of `plan` that break an error policy, by domain (the first
 * policy each breaks): the website a site rule names, and every change a
 * broken plan rule ranges over (its match). What self-heal never makes.
 */
export function changesBreakingPolicies(plan: Plan, state: DesiredState): Map<string, string> {
  const blocked = new Map<string, string>();
  const declarations = new Map((policiesOf(state)?.compiled ?? []).map((policy) => [policy.declaration.name, policy]));
  for (const violation of blockingViolations(plan.policies)) {
    if (violation.domain !== undefined) {
      if (!blocked.has(violation.domain)) blocked.set(violation.domain, violation.policy);
      continue;
    }
    const declaration = declarations.get(violation.policy)?.declaration;
    for (const change of plan.changes) {
      if (declaration !== undefined && !inMatch(declaration, change.domain)) continue;
      if (!blocked.has(change.domain)) blocked.set(change.domain, violation.policy);
    }
  }
  return blocked;
}
