/**
 * Secret: a value (API key, website password) that cannot leak by accident.
 * JSON.stringify, util.inspect, template strings and String() all show a
 * placeholder; only `reveal()` gives the value, and only the HTTP edge calls it.
 * Every Secret also registers its value with the process-wide redactor, so
 * text that reaches a terminal, file or log can be scrubbed as a last line of
 * defence (see `redact`). Imports nothing.
 */

const PLACEHOLDER = '(secret)';
const registered = new Set<string>();

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    // Very short values would redact ordinary words; they are still never printed directly.
    if (value.length >= 4) registered.add(value);
  }

  reveal(): string {
    return this.#value;
  }

  equals(other: Secret | undefined): boolean {
    return other !== undefined && other.#value === this.#value;
  }

  toJSON(): string {
    return PLACEHOLDER;
  }

  toString(): string {
    return PLACEHOLDER;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return PLACEHOLDER;
  }
}

/**
 * A password whose variable is unset, where only its presence matters (validate,
 * plan: a plan never holds a password). Revealing it is a bug: apply resolves
 * every password before it sends one.
 */
export class UnresolvedSecret extends Secret {
  readonly variable: string;

  constructor(variable: string) {
    super('');
    this.variable = variable;
  }

  override reveal(): string {
    throw new Error(`the password from ${this.variable} was not resolved`);
  }

  override equals(): boolean {
    return false;
  }
}

/** Replaces every registered secret value in `text` with a placeholder. */
export function redact(text: string): string {
  let out = text;
  for (const value of registered) {
    if (out.includes(value)) out = out.split(value).join(PLACEHOLDER);
  }
  return out;
}
