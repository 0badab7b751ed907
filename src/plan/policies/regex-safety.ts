/**
 * Whether a `matches()` pattern is safe to run: the CEL library runs it as a
 * JavaScript regular expression, which backtracks, so a repeated group that
 * holds a repetition or an alternative (`(a+)+`, `(a|aa)*`) can take
 * exponential time on a short domain. Those are refused, and so are the
 * features RE2 (CEL's own dialect) does not have: back-references and
 * look-around. What is left runs in polynomial time on inputs of a few
 * hundred characters. Pure.
 */

/** Why `pattern` is refused, or undefined when it is safe. */
export function unsafePattern(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
  } catch (error) {
    return `is not a valid pattern: ${(error as Error).message}`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'uses a back-reference, which CEL patterns (RE2) do not have';
  if (/\(\?<?[=!]/.test(pattern)) return 'uses look-around, which CEL patterns (RE2) do not have';
  return nestedRepetition(pattern)
    ? 'repeats a group that itself repeats or has alternatives (like (a+)+): it can take exponential time; write it without the outer repetition'
    : undefined;
}

/** A group holding a quantifier or `|`, itself followed by `*`, `+` or `{`. */
function nestedRepetition(pattern: string): boolean {
  /** Per open group: whether it holds a quantifier or an alternative. */
  const open: boolean[] = [];
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i]!;
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '[') {
      i = classEnd(pattern, i);
      continue;
    }
    if (char === '(') {
      open.push(false);
      // `(?:` and `(?<name>` open a group too: their `?` is no repetition.
      if (pattern[i + 1] === '?') i = pattern[i + 2] === '<' ? pattern.indexOf('>', i) : i + 2;
    } else if (char === ')') {
      const risky = open.pop() ?? false;
      const next = pattern[i + 1];
      if (risky && (next === '*' || next === '+' || next === '{')) return true;
      // A group that holds a repetition makes its enclosing group hold one too.
      if (risky && open.length > 0) open[open.length - 1] = true;
      if ((next === '*' || next === '+' || next === '{' || next === '?') && open.length > 0)
        open[open.length - 1] = true;
    } else if ('*+?{|'.includes(char) && open.length > 0) open[open.length - 1] = true;
    i += 1;
  }
  return false;
}

/** The index after the character class that starts at `start`. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1;
}
