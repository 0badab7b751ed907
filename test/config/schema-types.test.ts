/** The committed TypeScript types and compiled validator are exactly what the schema generates. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchemaTypes, SCHEMA_TYPES_PATH } from '../../scripts/gen-types.js';
import { generateSchemaValidator, SCHEMA_VALIDATOR_PATH } from '../../scripts/gen-validator.js';

describe('src/config/schema-types.ts', () => {
  it('is up to date with schemas/websites.schema.json (run npm run gen:types)', async () => {
    expect(await generateSchemaTypes()).toBe(readFileSync(SCHEMA_TYPES_PATH, 'utf8'));
  });
});

describe('src/config/schema-validator.ts', () => {
  it('is up to date with schemas/websites.schema.json (run npm run gen:types)', () => {
    expect(generateSchemaValidator()).toBe(readFileSync(SCHEMA_VALIDATOR_PATH, 'utf8'));
  });
});
