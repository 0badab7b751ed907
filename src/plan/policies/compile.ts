/**
 * Rules → compiled policies, offline (validate, and every plan before it
 * lists anything): parsed and type-checked against the documented variables
 * (environment.ts), true or false as a result, a cost that cannot run away
 * (cost.ts) and patterns that cannot backtrack for ever (regex-safety.ts).
 * Each problem names the rule's character offset, which config/ turns into
 * file:line:column, and a "did you mean" where a name is one edit away.
 * Pure.
 */
import type { PolicyDeclaration, PolicyKind } from '../../model/policies.js';
import { closest } from '../../model/text.js';
import { type AstNode, COST_LIMIT, type Cost, costAt, costOf, superlinear } from './cost.js';
import { environmentOf, FUNCTION_NAMES, TYPE_FIELDS, VARIABLES } from './environment.js';
import { unsafePattern } from './regex-safety.js';

export interface CompiledPolicy {
  declaration: PolicyDeclaration;
  kind: PolicyKind;
  /** Evaluates the rule with its variables (`site` or `plan`, and `target`); throws what CEL throws. */
  run: (variables: Record<string, unknown>) => unknown;
  /** Steps per evaluation as a polynomial in the plan's sizes. */
  cost: Cost;
}

/** A rule that does not compile: which one, where in it, and why. */
export interface PolicyProblem {
  declaration: PolicyDeclaration;
  /** Character offset in the rule. */
  offset: number;
  message: string;
}

export interface Compiled {
  policies: CompiledPolicy[];
  problems: PolicyProblem[];
}

export function compilePolicies(declarations: readonly PolicyDeclaration[]): Compiled {
  const policies: CompiledPolicy[] = [];
  const problems: PolicyProblem[] = [];
  for (const declaration of declarations) {
    const result = compileOne(declaration);
    if ('problem' in result) problems.push({ declaration, ...result.problem });
    else policies.push(result);
  }
  return { policies, problems };
}

/** What a CEL error carries, as far as this reads it. */
interface CelError {
  code?: string;
  summary?: string;
  message: string;
  range?: { start: number; end: number };
  node?: AstNode & { start?: number; end?: number };
}

type Outcome = CompiledPolicy | { problem: { offset: number; message: string } };

function compileOne(declaration: PolicyDeclaration): Outcome {
  const { rule } = declaration;
  let parsed: ReturnType<ReturnType<typeof environmentOf>['parse']>;
  try {
    parsed = environmentOf('site').parse(rule);
  } catch (error) {
    return { problem: problemOf(error as CelError, 'site') };
  }
  const kind: PolicyKind = mentions(parsed.ast as AstNode, 'plan') ? 'plan' : 'site';
  const env = environmentOf(kind);
  const checked = env.check(rule);
  if (!checked.valid) return { problem: problemOf(checked.error as unknown as CelError, kind) };
  if (checked.type !== 'bool') {
    return { problem: { offset: 0, message: `must be true or false (a CEL bool), but gives ${checked.type}` } };
  }
  const program = env.parse(rule);
  const ast = program.ast as AstNode;
  const pattern = unsafeMatches(ast);
  if (pattern !== undefined) return { problem: pattern };
  const cost = costOf(ast);
  const grows = superlinear(cost);
  if (grows !== undefined) {
    const what = grows === 'C' ? 'plan changes' : 'entries of a list setting';
    return {
      problem: {
        offset: 0,
        message: `cannot finish on a large plan: it ranges over the ${what} once for each of them (its cost grows with the square of their number); compare each with a fixed value instead`,
      },
    };
  }
  return { declaration, kind, cost, run: (variables) => program(variables) };
}

/** Whether the identifier `name` is used anywhere in the tree. */
function mentions(node: AstNode, name: string): boolean {
  if (node.op === 'id' && node.args === name) return true;
  const visit = (value: unknown): boolean =>
    Array.isArray(value)
      ? value.some(visit)
      : typeof value === 'object' && value !== null && 'op' in value && mentions(value as AstNode, name);
  return visit(node.args);
}

/** The first `matches` whose pattern is not a literal, or could backtrack without end. */
function unsafeMatches(node: AstNode): { offset: number; message: string } | undefined {
  const start = (node as { start?: number }).start ?? 0;
  if (node.op === 'rcall' || node.op === 'call') {
    const [name, ...rest] = node.args as [string, ...unknown[]];
    const args = (node.op === 'rcall' ? rest[1] : rest[0]) as AstNode[];
    if (name === 'matches') {
      const pattern = args[args.length - 1];
      if (pattern?.op !== 'value' || typeof pattern.args !== 'string') {
        return { offset: start, message: 'matches() takes its pattern as a literal string, so it can be checked here' };
      }
      const unsafe = unsafePattern(pattern.args);
      if (unsafe !== undefined) return { offset: (pattern as { start?: number }).start ?? start, message: unsafe };
    }
  }
  const found: { offset: number; message: string }[] = [];
  const visit = (value: unknown): void => {
    if (found.length > 0) return;
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === 'object' && value !== null && 'op' in value) {
      const inner = unsafeMatches(value as AstNode);
      if (inner !== undefined) found.push(inner);
    }
  };
  visit(node.args);
  return found[0];
}

/** A CEL error in the user's terms, with "did you mean" for a misspelt field, variable or function. */
function problemOf(error: CelError, kind: PolicyKind): { offset: number; message: string } {
  const summary = error.summary ?? error.message.split('\n')[0] ?? error.message;
  const offset = error.range?.start ?? 0;
  const key = /^No such key: (.+)$/.exec(summary);
  if (key !== undefined && key !== null) {
    const fields = fieldsOf(error.node);
    const suggestion = closest(key[1]!, fields);
    const known = suggestion === undefined ? ` (known: ${fields.join(', ')})` : `; did you mean ${suggestion}?`;
    return { offset, message: `${key[1]} is not a field of ${typeName(error.node)}${known}` };
  }
  const variable = /^Unknown variable: (.+)$/.exec(summary);
  if (variable !== null) {
    const names = VARIABLES[kind];
    const suggestion = closest(variable[1]!, [...VARIABLES.site, ...VARIABLES.plan]);
    const hint = ['site', 'plan'].includes(variable[1]!)
      ? '; a rule is over one website (site) or over the plan (plan), not both'
      : suggestion === undefined
        ? ` (a ${kind} rule knows ${names.join(', ')})`
        : `; did you mean ${suggestion}?`;
    return { offset, message: `${variable[1]} is not a variable${hint}` };
  }
  const call = /^found no matching overload for '(?:[^.(']*\.)?([A-Za-z_]+)\(/.exec(summary);
  if (call !== null && !(FUNCTION_NAMES as readonly string[]).includes(call[1]!)) {
    const suggestion = closest(call[1]!, FUNCTION_NAMES);
    const at = methodOffset(error.node) ?? offset;
    return {
      offset: at,
      message: `${call[1]}() is not a function${suggestion ? `; did you mean ${suggestion}()?` : ''}`,
    };
  }
  return { offset, message: summary };
}

/** The type whose field was asked for, as the checker recorded it on the indexed value. */
function typeName(node: CelError['node']): string {
  const left = (node as { left?: { checkedType?: { name?: string } } } | undefined)?.left;
  return (left?.checkedType?.name ?? 'the value').replace(/^\$/, '');
}

function fieldsOf(node: CelError['node']): readonly string[] {
  return TYPE_FIELDS[typeName(node)] ?? [];
}

/** Where a method's name starts (`x.startswth(…)`: after the dot), for a call the checker placed at the receiver. */
function methodOffset(node: CelError['node']): number | undefined {
  if (node?.op !== 'rcall') return undefined;
  const receiver = (node.args as unknown[])[1] as { end?: number } | undefined;
  return receiver?.end === undefined ? undefined : receiver.end + 1;
}

/** Whether the rule, at these sizes, stays within the cost limit. */
export function withinLimit(policy: CompiledPolicy, sizes: { C: number; L: number }, times = 1): boolean {
  return costAt(policy.cost, sizes) * times <= COST_LIMIT;
}
