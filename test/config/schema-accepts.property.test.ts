/**
 * Property: `schemaAccepts` (which checks plain website entries itself, for
 * speed) says exactly what the published schema's validator says, for any
 * file: plain entries, odd ones, and values of every wrong type in every key.
 */
import { fc, test } from '@fast-check/vitest';
import { expect, test as plainTest } from 'vitest';
import { schemaAccepts, schemaText } from '../../src/config/schema.js';
import generatedValidator from '../../src/config/schema-validator.js';

const schemaSays = generatedValidator as unknown as (data: unknown) => boolean;

// Every kind of value a YAML file can give, right and wrong for each key.
const scalar = fc.oneof(
  fc.constantFrom('public', 'private', 'password', 'Public', '', ' ', `\${SITE_PASSWORD}`, `\${1X}`, 'example.com'),
  fc.constantFrom(0, 1, 2, 3, -1, 1.5, true, false, null),
  fc.string({ maxLength: 4 }),
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 2, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('field', 'reason', 'x'), scalar, { maxKeys: 2 }) },
);
const KEYS = [
  'domain',
  'privacy',
  'password',
  'password_version',
  'email',
  'exclude_bots',
  'exclude_params',
  'exclude_ips',
  'favorite',
  'ignore_changes',
  'domains',
  'x-note',
];
// Entries as most are written: a domain and plain settings, valid or nearly so.
const plain = fc.record(
  {
    domain: fc.constantFrom('example.com', 'a.example.org', '', 'x'),
    privacy: fc.constantFrom('public', 'private', 'password', 0, 1, 2, 3, 'PUBLIC', true),
    email: fc.constantFrom(true, false, 1, 'true'),
    exclude_bots: fc.boolean(),
    favorite: fc.constantFrom(true, false, null),
    exclude_ips: fc.oneof(fc.array(fc.constantFrom('10.0.0.1', '', 'x', 1), { maxLength: 3 }), scalar),
    exclude_params: fc.oneof(fc.array(fc.constantFrom('fbclid', '', 7), { maxLength: 3 }), scalar),
  },
  { requiredKeys: ['domain'] },
);
const website = fc.oneof(
  { weight: 8, arbitrary: plain },
  { weight: 8, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 }) },
  { weight: 1, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
);
const config = fc.record(
  {
    version: fc.constantFrom(1, 2),
    defaults: fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 3 }),
    websites: fc.oneof({ weight: 9, arbitrary: fc.array(website, { maxLength: 4 }) }, { weight: 1, arbitrary: scalar }),
    unknown: scalar,
  },
  { requiredKeys: [] },
);

test.prop([config], { numRuns: 3000 })('schemaAccepts agrees with the schema on any file', (data) => {
  expect(schemaAccepts(data)).toBe(schemaSays(data));
});

test.prop([fc.array(website, { minLength: 1, maxLength: 3 })], { numRuns: 3000 })(
  'and on any websites list of a valid file',
  (websites) => {
    const data = { version: 1, websites };
    expect(schemaAccepts(data)).toBe(schemaSays(data));
  },
);

plainTest('the schema still says what isPlainWebsite checks by itself', () => {
  // When this fails, the schema changed under schemaAccepts' own loop (src/config/schema.ts): update both.
  const schema = JSON.parse(schemaText()) as { $defs: Record<string, Record<string, unknown>> };
  const { description: _privacy, ...privacy } = schema.$defs.privacy!;
  const { description: _params, ...paramList } = schema.$defs.paramList!;
  const { description: _ips, ...ipList } = schema.$defs.ipList!;
  const website = schema.$defs.website as { properties: Record<string, Record<string, unknown>> };
  const { description: _domain, ...domain } = website.properties.domain!;
  expect(privacy).toEqual({ enum: ['public', 'private', 'password', 0, 1, 2] });
  expect(schema.$defs.flag).toEqual({ type: 'boolean' });
  for (const list of [paramList, ipList]) {
    expect(list).toEqual({ type: ['array', 'string'], items: { type: 'string', minLength: 1 } });
  }
  expect(domain).toEqual({ type: 'string', minLength: 1 });
  expect(website.properties.email).toEqual({ $ref: '#/$defs/flag' });
  expect(website.properties.exclude_bots).toEqual({ $ref: '#/$defs/flag' });
  expect(website.properties.favorite).toEqual({ $ref: '#/$defs/flag' });
  expect(website.properties.privacy).toEqual({ $ref: '#/$defs/privacy' });
  expect(website.properties.exclude_params).toEqual({ $ref: '#/$defs/paramList' });
  expect(website.properties.exclude_ips).toEqual({ $ref: '#/$defs/ipList' });
});
