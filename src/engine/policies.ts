/**
 * The configuration's policies in the pipeline: compiled once per loaded
 * state (a rule that does not compile is a configuration problem at its
 * file:line:column, for validate, plan and apply alike), and evaluated over
 * each plan the engine makes (src/plan/policies/ does both, purely).
 */
import type { LoadResult } from '../config/index.js';
import type { ConfigProblem, DesiredState } from '../model/desired-state.js';
import type { Plan, PlanPolicy } from '../model/plan.js';
import type { PolicyReport } from '../model/policies.js';
import { scopeOf } from '../plan/index.js';
import { type CompiledPolicy, compilePolicies, evaluatePolicies, policiesDigest } from '../plan/policies/index.js';

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
