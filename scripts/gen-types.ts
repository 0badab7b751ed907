/**
 * Generates src/config/schema-types.ts from schemas/websites.schema.json, so the
 * TypeScript types of the raw file follow from the schema (the single
 * authority). `npm run gen:types`; test/config/schema-types.test.ts fails when
 * the committed file is out of date.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

const SCHEMA = fileURLToPath(new URL('../schemas/websites.schema.json', import.meta.url));
const TARGET = fileURLToPath(new URL('../src/config/schema-types.ts', import.meta.url));
const BIOME = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

const BANNER = `/**
 * The raw websites.yaml, as TypeScript types. GENERATED from
 * schemas/websites.schema.json by scripts/gen-types.ts (npm run gen:types):
 * do not edit by hand.
 */`;

/** The generated module text (formatted in the project's style). */
export async function generateSchemaTypes(): Promise<string> {
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as JSONSchema;
  // x- extension fields only hold anchors; nothing reads them, and an index signature would hide typos.
  delete schema.patternProperties;
  const text = await compile(schema, 'WebsitesConfig', {
    bannerComment: BANNER,
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: true,
    format: false,
  });
  // Formatted by the project's own formatter, so `biome check` and the drift test agree.
  return execFileSync(BIOME, ['format', `--stdin-file-path=${TARGET}`], { input: text, encoding: 'utf8' });
}

export const SCHEMA_TYPES_PATH = TARGET;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(TARGET, await generateSchemaTypes());
  console.log(`wrote ${TARGET}`);
}
