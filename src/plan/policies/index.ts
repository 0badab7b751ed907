/**
 * The team's rules (docs/config.md, Policies): compiled offline, evaluated
 * over a target's desired state and plan, digested for a saved plan. Pure,
 * like the planner; the only user of the CEL library (environment.ts).
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../../model/canonical-json.js';
import type { PolicyDeclaration } from '../../model/policies.js';

export { type Compiled, type CompiledPolicy, compilePolicies, type PolicyProblem } from './compile.js';
export { COST_LIMIT } from './cost.js';
export { appliesTo, evaluatePolicies, inMatch, type PolicyInput } from './evaluate.js';

/**
 * `sha256:` over the policies as configured (name, match, rule, message,
 * severity), by name: a plan saved under other policies is refused at apply.
 */
export function policiesDigest(declarations: readonly PolicyDeclaration[]): string {
  const plain = declarations
    .map(({ name, match, rule, message, severity }) => ({ name, match, rule, message, severity }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return `sha256:${hash('sha256', canonicalJson(plain), 'hex')}`;
}
