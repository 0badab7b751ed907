/**
 * What a rule costs, worked out from its syntax tree before it runs: CEL has
 * no loops, only macros over lists (`all`, `exists`, `map`...), so its cost is
 * a polynomial in the sizes of the lists it ranges over. Two sizes grow:
 * `C`, the plan's changes, and `L`, the entries of a site's list setting
 * (`exclude_ips`, `exclude_params`). A rule whose cost grows with the square
 * of either (every change compared with every change) is refused when it is
 * compiled; any other is refused when, at the sizes of this plan, it would
 * cost more than COST_LIMIT: a rule that cannot finish is never started.
 * Pure. (The CEL library has structural limits, not cost limits.)
 */

/** Steps one rule may take over one plan (all its evaluations together): about a second at most. */
export const COST_LIMIT = 10_000_000;

/** Size of the lists that do not grow with the plan or the configuration: the seven field names. */
const FIELD_COUNT = 7;
/** What `split` may return: a domain is at most 253 characters. */
const SPLIT_PARTS = 256;

/** A polynomial in C and L: `c,l` exponents → coefficient. */
export type Cost = Map<string, number>;

const constant = (value: number): Cost => new Map(value === 0 ? [] : [['0,0', value]]);
const variable = (name: 'C' | 'L'): Cost => new Map([[name === 'C' ? '1,0' : '0,1', 1]]);

function add(...terms: Cost[]): Cost {
  const sum: Cost = new Map();
  for (const term of terms) for (const [key, value] of term) sum.set(key, (sum.get(key) ?? 0) + value);
  return sum;
}

function multiply(a: Cost, b: Cost): Cost {
  const product: Cost = new Map();
  for (const [ka, va] of a) {
    const [ca, la] = ka.split(',').map(Number) as [number, number];
    for (const [kb, vb] of b) {
      const [cb, lb] = kb.split(',').map(Number) as [number, number];
      const key = `${ca + cb},${la + lb}`;
      product.set(key, (product.get(key) ?? 0) + va * vb);
    }
  }
  return product;
}

/** The cost at these sizes. */
export function costAt(cost: Cost, sizes: { C: number; L: number }): number {
  let total = 0;
  for (const [key, value] of cost) {
    const [c, l] = key.split(',').map(Number) as [number, number];
    total += value * sizes.C ** c * sizes.L ** l;
  }
  return total;
}

/** `C` or `L` when the cost grows with its square (or more), else undefined. */
export function superlinear(cost: Cost): 'C' | 'L' | undefined {
  for (const key of cost.keys()) {
    const [c, l] = key.split(',').map(Number) as [number, number];
    if (c >= 2) return 'C';
    if (l >= 2) return 'L';
  }
  return undefined;
}

/** A node of the CEL library's syntax tree, as far as this needs it. */
export interface AstNode {
  op: string;
  args: unknown;
}

const isNode = (value: unknown): value is AstNode =>
  typeof value === 'object' && value !== null && typeof (value as AstNode).op === 'string';

/** The nodes directly below `node`, wherever its `args` hold them. */
function children(node: AstNode): AstNode[] {
  const found: AstNode[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value)) for (const item of value) visit(item);
  };
  visit(node.args);
  return found;
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const GROWING: Readonly<Record<string, Cost>> = {
  changes: variable('C'),
  creates: variable('C'),
  updates: variable('C'),
  deletes: variable('C'),
  exclude_ips: variable('L'),
  exclude_params: variable('L'),
  fields: constant(FIELD_COUNT),
  ignore_changes: constant(FIELD_COUNT),
};

/** Steps to evaluate `node`: one per node, times the size of the list for a macro's body. */
export function costOf(node: AstNode): Cost {
  if (node.op === 'rcall') {
    const [name, receiver, args] = node.args as [string, AstNode, AstNode[]];
    if (MACROS.has(name)) {
      const body = add(constant(1), ...args.slice(1).map(costOf));
      return add(costOf(receiver), multiply(sizeOf(receiver), body));
    }
  }
  const own = node.op === 'in' ? sizeOf(children(node)[1] ?? node) : constant(0);
  return add(constant(1), own, ...children(node).map(costOf));
}

/** How many entries the list `node` evaluates to can hold (0 for what is not a list). */
function sizeOf(node: AstNode): Cost {
  switch (node.op) {
    case '.':
    case '.?': {
      const [, field] = node.args as [AstNode, string];
      return GROWING[field] ?? constant(0);
    }
    case 'list':
      return constant(children(node).length);
    case 'rcall': {
      const [name, receiver] = node.args as [string, AstNode];
      if (name === 'map' || name === 'filter') return sizeOf(receiver);
      return name === 'split' ? constant(SPLIT_PARTS) : constant(0);
    }
    case '+':
    case '?:':
      return add(...children(node).map(sizeOf));
    default:
      return constant(0);
  }
}
