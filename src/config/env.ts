/**
 * `${NAME}` references: values taken from the environment at load time, so
 * secrets never sit in a file kept in git. Resolved only in `password`, which
 * must be exactly one reference to a variable named SITESYNC_… (a file in the
 * repository must not read any other variable of the job); never in a URL,
 * which is pinned outside the repository (docs/workflows.md, "Threat model").
 */
import { isSecretVariable, SECRET_VARIABLE_PREFIX } from '../model/secret.js';

const WHOLE_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The environment the configuration is resolved against (`process.env` in the CLI, a literal in tests). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * `resolve`: every website password variable must be set (apply, plan --sync-write-only).
 * `check`: only the reference's form is checked and an unset one is a warning, since
 * validate and plan never send a password (docs/config.md, "Passwords").
 */
export type SecretMode = 'resolve' | 'check';

/** Why a URL written in the configuration may not hold `${…}`: the message of that problem. */
export const URL_REFERENCE_MESSAGE = `holds \${…}, but \${…} is resolved only in password: a URL a key is sent to is pinned outside the repository (SITESYNC_URL, or the origin in SITESYNC_ALLOWED_ORIGINS; docs/config.md)`;

/** True when `text` holds a `${` that would have been a reference. */
export function hasReference(text: string): boolean {
  return text.includes('${');
}

/** Why a variable may not be read (a key or a password), or undefined when it may. */
export function refusedVariable(name: string, what: 'a key' | 'a password', example: string): string | undefined {
  if (isSecretVariable(name)) return undefined;
  return `${JSON.stringify(name)}: ${what} is read only from a variable whose name starts with ${SECRET_VARIABLE_PREFIX}, such as ${example} (docs/config.md)`;
}

/** The variable name of a whole-value reference (`${NAME}`), or undefined for anything else. */
export function referenceName(text: string): string | undefined {
  return WHOLE_REFERENCE.exec(text)?.[1];
}

/** `uses environment variable SITESYNC_PW, which is not set` / `…, which is empty`. */
export function missingMessage(name: string, env: Env): string {
  return `uses environment variable ${name}, which is ${env[name] === undefined ? 'not set' : 'empty'}`;
}
