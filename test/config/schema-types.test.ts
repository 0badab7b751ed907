/** The committed TypeScript types of the raw file are exactly what the schema generates. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchemaTypes, SCHEMA_TYPES_PATH } from '../../scripts/gen-types.js';

describe('src/config/schema-types.ts', () => {
  it('is up to date with schemas/websites.schema.json (run npm run gen:types)', async () => {
    expect(await generateSchemaTypes()).toBe(readFileSync(SCHEMA_TYPES_PATH, 'utf8'));
  });
});
