/**
 * `${NAME}` references: values taken from the environment at load time, so
 * secrets never sit in a file kept in git. Resolved in `password` (which must
 * be exactly one reference) and in `api.url`.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The environment the configuration is resolved against (`process.env` in the CLI, a literal in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * `resolve`: every website password variable must be set (apply, plan --sync-write-only).
 * `check`: only the reference's form is checked and an unset one is a warning, since
 * validate and plan never send a password (docs/config.md, "Passwords").
 */
export type SecretMode = 'resolve' | 'check';

export type Interpolated = { value: string } | { missing: string[] };

/** Replaces every `${NAME}`; names that are unset (or empty) are reported, all of them. */
export function interpolate(text: string, env: Env): Interpolated {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (_match, name: string) => {
    const found = env[name];
    if (found === undefined || found === '') missing.push(name);
    return found ?? '';
  });
  return missing.length > 0 ? { missing } : { value };
}

/** The variable name of a whole-value reference (`${NAME}`), or undefined for anything else. */
export function referenceName(text: string): string | undefined {
  return WHOLE_REFERENCE.exec(text)?.[1];
}

/**
 * `uses environment variable PW, which is not set` / `…, which is empty`, or
 * for several `uses environment variables A, B, which are not set (A) or empty (B)`.
 */
export function missingMessage(names: readonly string[], env: Env): string {
  const unset = names.filter((name) => env[name] === undefined);
  const empty = names.filter((name) => env[name] !== undefined);
  const list = names.join(', ');
  const prefix =
    names.length === 1
      ? `uses environment variable ${list}, which is`
      : `uses environment variables ${list}, which are`;
  if (empty.length === 0) return `${prefix} not set`;
  if (unset.length === 0) return `${prefix} empty`;
  return `${prefix} not set (${unset.join(', ')}) or empty (${empty.join(', ')})`;
}
