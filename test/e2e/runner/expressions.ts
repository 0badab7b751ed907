/**
 * The part of GitHub Actions expressions the workflows and action.yml use:
 * `${{ ... }}` with contexts (github, inputs, steps, env, secrets, vars,
 * matrix), string and number literals, == != && || ! and parentheses, and the
 * status functions success(), failure(), always(). A missing property is ''.
 */
export type Contexts = Record<string, unknown>;

const TOKEN = /'(?:[^']|'')*'|\d+|[A-Za-z_][\w-]*(?:\.[\w-]+)*(?:\(\))?|&&|\|\||==|!=|!|\(|\)|\s+/y;
const OPERATORS = ['&&', '||', '==', '!=', '!', '(', ')'];

function lookup(contexts: Contexts, path: string): unknown {
  let value: unknown = contexts;
  for (const key of path.split('.')) {
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value ?? '';
}

/** The value of one expression (without `${{ }}`); `failed`: whether an earlier step failed. */
export function evaluate(expression: string, contexts: Contexts, failed = false): unknown {
  const values: unknown[] = [];
  let js = '';
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(expression);
    if (match === null) throw new Error(`expression: cannot read "${expression.slice(at)}"`);
    const token = match[0];
    if (/^\s+$/.test(token) || OPERATORS.includes(token) || /^\d+$/.test(token)) js += token;
    else if (token.startsWith("'")) js += JSON.stringify(token.slice(1, -1).replace(/''/g, "'"));
    else if (token === 'true' || token === 'false' || token === 'null') js += token;
    else if (token.endsWith('()')) {
      const statuses: Record<string, boolean> = {
        'success()': !failed,
        'failure()': failed,
        'always()': true,
        'cancelled()': false,
      };
      if (statuses[token] === undefined) throw new Error(`expression: unknown function ${token}`);
      js += String(statuses[token]);
    } else {
      values.push(lookup(contexts, token));
      js += `v[${values.length - 1}]`;
    }
  }
  return new Function('v', `return (${js});`)(values);
}

/** `text` with every `${{ expression }}` replaced by its value. */
export function interpolate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => String(evaluate(expression, contexts)));
}

/** A step's `if:` (with or without `${{ }}`), by default success(). */
export function condition(text: string | undefined, contexts: Contexts, failed: boolean): boolean {
  if (text === undefined) return !failed;
  const expression = text.trim().replace(/^\$\{\{(.*)\}\}$/s, '$1');
  const usesStatus = /\b(success|failure|always|cancelled)\(\)/.test(expression);
  return Boolean(evaluate(expression, contexts, failed)) && (usesStatus || !failed);
}
