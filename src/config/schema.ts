/**
 * The published JSON Schema (schemas/websites.schema.json) is the authority for
 * the shape of a file: ajv (2020-12, strict, all errors) checks each file and
 * every error comes back as a problem at its YAML position, in the user's terms.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ConfigProblem } from '../model/desired-state.js';
import { formatPath, type PathSegment, pointerToPath, problemAt, type SourceFile } from './positions.js';
import { schemaErrorMessage } from './schema-messages.js';
import type { WebsitesConfig } from './schema-types.js';

/** Works from src/ (vitest, tsx) and from dist/ alike: both sit two levels below the package root. */
export const SCHEMA_URL = new URL('../../schemas/websites.schema.json', import.meta.url);

let cachedText: string | undefined;
let cachedValidator: ValidateFunction<WebsitesConfig> | undefined;

export function schemaText(): string {
  cachedText ??= readFileSync(fileURLToPath(SCHEMA_URL), 'utf8');
  return cachedText;
}

function validator(): ValidateFunction<WebsitesConfig> {
  if (!cachedValidator) {
    // allowUnionTypes: lists may also be written as multi-line strings (type: [array, string]).
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true });
    cachedValidator = ajv.compile<WebsitesConfig>(JSON.parse(schemaText()));
  }
  return cachedValidator;
}

/** Problems of one file's data against the schema; none means `data` is a WebsitesConfig. */
export function checkSchema(source: SourceFile, data: unknown): ConfigProblem[] {
  const validate = validator();
  if (validate(data)) return [];
  return (validate.errors ?? []).map((error) => toProblem(source, error));
}

function toProblem(source: SourceFile, error: ErrorObject): ConfigProblem {
  const path: PathSegment[] = pointerToPath(error.instancePath);
  const message = schemaErrorMessage(error);
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      return problemAt(source, [...path, key], message, { at: 'key' });
    }
    case 'required': {
      // Placed on the mapping that lacks the field, named by the field's path.
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return { ...problemAt(source, path, message), path: formatPath([...path, missing]) };
    }
    default:
      return problemAt(source, path, message);
  }
}
