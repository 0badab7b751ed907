/**
 * ajv errors → short messages in the user's terms ("must be one of public,
 * private, password", "is not a known field; did you mean privacy?"). The
 * path is not part of the message: formatProblem puts it in front.
 */
import type { ErrorObject } from 'ajv';
import { closest } from './did-you-mean.js';

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
  null: 'empty',
};

/** Messages for values whose rule is a named definition (keyed by `$defs` name). */
const DEFINITION_MESSAGES: Readonly<Record<string, string>> = {
  isoDate: 'must be a date written YYYY-MM-DD (a UTC day), such as 2026-12-31',
  password: `must be an environment reference such as \${SITESYNC_SHOP_PASSWORD}; a literal password is refused because this file is kept in version control`,
};

function typeWords(type: string | string[]): string {
  if (Array.isArray(type) && type.length === 2 && type.includes('array') && type.includes('string')) {
    return 'a list or a multi-line string';
  }
  return (Array.isArray(type) ? type : [type]).map((name) => TYPE_WORDS[name] ?? name).join(' or ');
}

function describeValue(value: unknown): string {
  if (value === null) return 'it is empty';
  if (Array.isArray(value)) return 'it is a list';
  if (typeof value === 'object') return 'it is a mapping';
  return `got ${JSON.stringify(value)}`;
}

function typeMessage(error: ErrorObject): string {
  const expected = typeWords((error.params as { type: string | string[] }).type);
  const hint =
    expected === 'true or false' && typeof error.data === 'string' && /^(yes|no|on|off|y|n)$/i.test(error.data)
      ? ' (YAML 1.2 reads yes/no/on/off as text)'
      : '';
  return `must be ${expected}; ${describeValue(error.data)}${hint}`;
}

function enumMessage(values: readonly unknown[], given: unknown): string {
  // Numeric aliases (privacy 0/1/2) are accepted but the words are what people should write.
  const words = values.filter((value) => typeof value === 'string');
  const suggestion = typeof given === 'string' ? closest(given, words) : undefined;
  const hint = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
  return `must be one of ${(words.length > 0 ? words : values).map(String).join(', ')}${hint}`;
}

function unknownKeyMessage(error: ErrorObject): string {
  const key = (error.params as { additionalProperty: string }).additionalProperty;
  const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
  // A near miss of a known field first (key_flie → key_file, where targets declare one).
  const suggestion = closest(key, known);
  if (suggestion) return `is not a known field; did you mean ${suggestion}?`;
  if (/key|token|secret/i.test(key)) {
    return 'is not a known field; API keys never go in this file: set them in the environment';
  }
  return `is not a known field (known fields: ${known.join(', ')})`;
}

function definitionName(error: ErrorObject): string | undefined {
  return /#\/\$defs\/([^/]+)\//.exec(error.schemaPath)?.[1];
}

export function schemaErrorMessage(error: ErrorObject): string {
  const special = DEFINITION_MESSAGES[definitionName(error) ?? ''];
  if (special && error.keyword === 'pattern') return special;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKeyMessage(error);
    case 'required':
      return params.missingProperty === 'version' ? 'is required: start the file with version: 1' : 'is required';
    case 'type':
      return typeMessage(error);
    case 'enum':
      return enumMessage(params.allowedValues as unknown[], error.data);
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'minLength':
      return 'must not be empty';
    case 'anyOf':
      return 'must be a field name or a mapping such as { field: email, reason: "...", until: 2026-12-31 }';
    case 'uniqueItems':
      return `lists the same value twice (items ${String(params.j)} and ${String(params.i)})`;
    default:
      return error.message ?? `is invalid (${error.keyword})`;
  }
}
