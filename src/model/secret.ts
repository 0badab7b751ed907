/**
 * Secret: a value (API key, website password) that cannot leak by accident.
 * JSON.stringify, util.inspect, template strings and String() all show a
 * placeholder; only `reveal()` gives the value, and only the HTTP edge calls it.
 * Every Secret also registers its value with the process-wide redactor, so
 * text that reaches a terminal, file or log can be scrubbed as a last line of
 * defence (see `redact`), until it is released. Imports nothing.
 */

const PLACEHOLDER = '(secret)';

/**
 * The only variables a configuration may read a secret from (a target's
 * `key_env`, a `${NAME}` password): a file in the repository must not be able
 * to turn any other variable of the job (a webhook, a cloud token) into a key
 * or a password it sends (docs/workflows.md, "Threat model").
 */
export const SECRET_VARIABLE_PREFIX = 'SITESYNC_';

export function isSecretVariable(name: string): boolean {
  return name.startsWith(SECRET_VARIABLE_PREFIX) && name.length > SECRET_VARIABLE_PREFIX.length;
}
/** Each registered value and how many live Secrets hold it. */
const registered = new Map<string, number>();

export class Secret {
  readonly #value: string;
  #held: boolean;

  constructor(value: string) {
    this.#value = value;
    // Very short values would redact ordinary words; they are still never printed directly.
    this.#held = value.length >= 4;
    if (this.#held) registered.set(value, (registered.get(value) ?? 0) + 1);
  }

  /**
   * This Secret is no longer used: its value stops being redacted once no
   * other Secret holds it. For a long-running process (`watch`) that loads
   * its configuration again each cycle and releases the previous load's
   * secrets, so that the registry holds what is in use, not every value ever seen.
   */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    const holders = (registered.get(this.#value) ?? 1) - 1;
    if (holders > 0) registered.set(this.#value, holders);
    else registered.delete(this.#value);
  }

  reveal(): string {
    return this.#value;
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
}

/** Replaces every registered secret value in `text` with a placeholder. */
export function redact(text: string): string {
  let out = text;
  for (const value of registered.keys()) out = out.replaceAll(value, PLACEHOLDER);
  return out;
}

/**
 * Forgets every registered value, as a new process would start: for a host that runs several
 * independent jobs in one process (a test runner's worker between files), where one job's
 * secrets must not scrub the next one's output. Secrets still held are never printed anyway.
 */
export function forgetRegisteredSecrets(): void {
  registered.clear();
}
