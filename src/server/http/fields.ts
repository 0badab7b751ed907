/**
 * The request fields of the API as JSON Schema (2020-12, as OpenAPI 3.1 uses),
 * per mode: one definition that the validators read their ranges, lengths and
 * defaults from (validation.ts, list-query.ts) and that the OpenAPI document
 * (openapi.ts) publishes. The messages stay in the validators: they must be the
 * real service's Laravel texts, which JSON Schema validation cannot give.
 */
import type { ServerMode } from './mode.js';

export type JsonSchema = Record<string, unknown>;

/** Integer flags and their contract defaults on store (quirks mode stores NULL for an absent privacy or email). */
export const FLAGS = {
  privacy: { min: 0, max: 2, default: 1, description: '0 public, 1 private, 2 password-protected.' },
  email: { min: 0, max: 1, default: 0, description: 'Periodic e-mail reports: 0 off, 1 on.' },
  exclude_bots: { min: 0, max: 1, default: 1, description: 'Exclude common bots: 0 no, 1 yes.' },
} as const;

export const LIMITS = { domain: 255, password: 128 } as const;
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const SORT_BY = ['id', 'domain'] as const;
export const SORT = ['desc', 'asc'] as const;

const nullable = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  type: [...(Array.isArray(schema.type) ? schema.type : [schema.type]), 'null'],
});

/** Integers also arrive as numeric text (form bodies); both are read the same. */
function flag(name: keyof typeof FLAGS, mode: ServerMode, onStore: boolean): JsonSchema {
  const { min, max, description } = FLAGS[name];
  const quirksAnyInteger = mode === 'phpanalytics-v31' && name === 'email';
  const range = quirksAnyInteger ? {} : { minimum: min, maximum: max };
  const column = quirksAnyInteger
    ? ' Any integer passes validation; its TINYINT column then refuses what is outside -128..127 (500).'
    : '';
  const schema: JsonSchema = { type: 'integer', ...range, description: `${description}${column}` };
  const storedDefault = mode === 'phpanalytics-v31' && name !== 'exclude_bots' ? null : FLAGS[name].default;
  return onStore ? { ...nullable(schema), default: storedDefault } : schema;
}

const text = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

/** The body of `POST /api/v1/websites` (store) or of `PUT/PATCH /api/v1/websites/{id}` (update). */
export function websiteBodySchema(mode: ServerMode, operation: 'store' | 'update'): JsonSchema {
  const store = operation === 'store';
  const properties: Record<string, JsonSchema> = {};
  if (store) {
    properties.domain = {
      type: 'string',
      maxLength: LIMITS.domain,
      description:
        'Lower-cased; http(s):// and www. removed. A host name with a dot (or a dotted IPv4 address), unique across accounts.',
    };
  }
  properties.privacy = flag('privacy', mode, store);
  properties.password = {
    ...text('Required (on store, or when none is stored) when privacy is 2. Never returned.'),
    maxLength: LIMITS.password,
  };
  properties.email = flag('email', mode, store);
  properties.exclude_bots = flag('exclude_bots', mode, store);
  properties.exclude_params = text('URL query parameters excluded from tracking, one per line.');
  properties.exclude_ips = text('IP addresses excluded from tracking, one per line.');
  if (mode === 'normal') {
    properties.favorited_at = {
      ...text('When the website became a favourite (UTC), Y-m-dTH:i:s; null: not a favourite.'),
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    };
  }
  if (!store) {
    properties.favorite = {
      type: mode === 'normal' ? ['boolean', 'integer', 'string'] : ['integer', 'string', 'null'],
      ...(mode === 'normal' && { enum: [true, false, 1, 0, '1', '0', 'true', 'false'] }),
      description: 'Sets (1) or clears (0) the favourite mark; favorited_at becomes now or null.',
    };
  }
  return {
    type: 'object',
    properties,
    ...(store && { required: ['domain'] }),
    description: 'Unknown fields are ignored; text is trimmed and an empty value reads as null.',
  };
}

export interface QueryParameter {
  name: string;
  description: string;
  schema: JsonSchema;
}

/** The list's query parameters; unreadable values fall back to the defaults, as the real service does. */
export function listParameters(mode: ServerMode): QueryParameter[] {
  return [
    { name: 'page', description: 'Page number, from 1.', schema: { type: 'integer', minimum: 1, default: 1 } },
    {
      name: 'per_page',
      description: 'Results per page.',
      schema: { type: 'integer', enum: [...PAGE_SIZES], default: PAGE_SIZES[0] },
    },
    {
      name: 'sort_by',
      description: 'id: date created.',
      schema: { type: 'string', enum: [...SORT_BY], default: SORT_BY[0] },
    },
    { name: 'sort', description: 'Sort direction.', schema: { type: 'string', enum: [...SORT], default: SORT[0] } },
    {
      name: 'search',
      description:
        mode === 'normal'
          ? 'A case-insensitive substring of the domain.'
          : 'A case-insensitive LIKE pattern inside the domain (% and _ are wildcards).',
      schema: { type: 'string' },
    },
    {
      name: 'search_by',
      description: 'The field searched.',
      schema: { type: 'string', enum: ['domain'], default: 'domain' },
    },
    mode === 'normal'
      ? {
          name: 'favorite',
          description: 'Only favourites (1) or only the others (0).',
          schema: { type: 'string', enum: ['1', '0', 'true', 'false'] },
        }
      : {
          name: 'favorite',
          description: 'A number: 0 lists the others, any other number the favourites; text is no filter.',
          schema: { type: 'string' },
        },
  ];
}
