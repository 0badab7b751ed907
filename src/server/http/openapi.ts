/**
 * The OpenAPI 3.1 document of the API as this server serves it, per mode:
 * request schemas from fields.ts (which the validators read), the record from
 * present.ts's record shape (which the stores serialise), the error bodies of
 * http-error.ts. Served at GET /api/v1/openapi.json and printed by
 * `sitesync serve openapi`. Each operation carries request examples that a test
 * replays against the server (test/server/openapi.test.ts).
 */
import type { FieldSource } from '../store/contract.js';
import { type JsonSchema, listParameters, PAGE_SIZES, websiteBodySchema } from './fields.js';
import type { ServerMode } from './mode.js';
import { recordShape } from './present.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Record keys → their JSON types, read from the record shape (a key added there shows up here). */
function recordSchema(mode: ServerMode): JsonSchema {
  const quirks = mode === 'phpanalytics-v31';
  const typeOf = (key: string, source: FieldSource): JsonSchema => {
    if (source.as === 'isSet') return { type: 'boolean' };
    if (key === 'id') return { type: 'integer', minimum: 1 };
    if (key === 'domain' || key === 'created_at' || key === 'updated_at') return { type: 'string' };
    const integer = ['privacy', 'email', 'exclude_bots'].includes(key);
    // Quirks mode echoes the values sent on writes as they came (text from a form).
    if (integer) return { type: quirks ? ['integer', 'string', 'null'] : ['integer', 'null'] };
    return { type: ['string', 'null'] };
  };
  const shape = recordShape(mode);
  return {
    type: 'object',
    properties: Object.fromEntries(shape.map(([key, source]) => [key, typeOf(key, source)])),
    required: shape.map(([key]) => key),
  };
}

function schemas(mode: ServerMode): Record<string, JsonSchema> {
  const link = { type: ['string', 'null'], format: 'uri' };
  return {
    Website: recordSchema(mode),
    WebsiteEnvelope: {
      type: 'object',
      properties: { data: ref('Website'), status: { const: 200 } },
      required: ['data', 'status'],
    },
    WebsitePage: {
      type: 'object',
      properties: {
        data: { type: 'array', items: ref('Website') },
        links: {
          type: 'object',
          properties: { first: link, last: link, prev: link, next: link },
          required: ['first', 'last', 'prev', 'next'],
        },
        meta: {
          type: 'object',
          properties: {
            current_page: { type: 'integer', minimum: 1 },
            from: { type: ['integer', 'null'] },
            last_page: { type: 'integer', minimum: 1 },
            links: {
              type: 'array',
              items: {
                type: 'object',
                properties: { url: link, label: { type: 'string' }, active: { type: 'boolean' } },
                required: ['url', 'label', 'active'],
              },
            },
            path: { type: 'string', format: 'uri' },
            // The real service sends per_page as text ("10").
            per_page:
              mode === 'normal'
                ? { type: 'integer', enum: [...PAGE_SIZES] }
                : { type: 'string', enum: PAGE_SIZES.map(String) },
            to: { type: ['integer', 'null'] },
            total: { type: 'integer', minimum: 0 },
          },
          required: ['current_page', 'from', 'last_page', 'links', 'path', 'per_page', 'to', 'total'],
        },
        status: { const: 200 },
      },
      required: ['data', 'links', 'meta', 'status'],
    },
    Deleted: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        object: { const: 'website' },
        deleted: { const: true },
        status: { const: 200 },
      },
      required: ['id', 'object', 'deleted', 'status'],
    },
    ValidationError: {
      type: 'object',
      description: 'message is an object: field → messages (possibly translated: match on fields, not text).',
      properties: {
        message: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        status: { const: 422 },
      },
      required: ['message', 'status'],
    },
    Error: {
      type: 'object',
      properties: { message: { type: 'string' }, status: { type: 'integer' } },
      required: ['message'],
    },
  };
}

const json = (schema: string, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(schema) } },
});

/** Answers every API operation may give, besides its own. */
function commonResponses(mode: ServerMode): Record<string, unknown> {
  return {
    401: {
      ...json('Error', 'No key, or an unknown one.'),
      ...(mode !== 'normal' && { description: 'No key, or an unknown one (with Accept: application/json).' }),
    },
    ...(mode !== 'normal' && {
      302: { description: 'No key, or an unknown one, without Accept: application/json: a redirect to /login.' },
    }),
    403: json('Error', "The account's plan has no API access."),
    429: {
      ...json('Error', 'Too many requests (or failed authentications): wait Retry-After seconds.'),
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
    },
    503: json('Error', 'The database cannot answer for now (locked, busy, shutting down): retry later.'),
  };
}

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The website's id.",
  schema: { type: 'integer', minimum: 1 },
  example: 1,
};

function body(mode: ServerMode, operation: 'store' | 'update', examples: Record<string, unknown>) {
  const schema = websiteBodySchema(mode, operation);
  const named = Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }]));
  return {
    required: operation === 'store',
    content: {
      'application/x-www-form-urlencoded': { schema, examples: named },
      'application/json': { schema, examples: named },
    },
  };
}

export function openApiDocument(mode: ServerMode): Record<string, unknown> {
  const common = commonResponses(mode);
  const notFound = { 404: json('Error', 'No such website in this account.') };
  // The deployed service's update of a missing website is a 500 (v31's bug).
  const missing =
    mode === 'normal'
      ? notFound
      : {
          500: json(
            'Error',
            'No such website in this account (the real service answers 500), or a value its column cannot hold.',
          ),
        };
  // Values its columns cannot hold fail the deployed service's write: 500, nothing stored.
  const unstorable =
    mode === 'normal' ? {} : { 500: json('Error', 'A value its column cannot hold (email outside -128..127).') };
  const list = listParameters(mode).map(({ name, description, schema }) => ({
    name,
    in: 'query',
    description,
    schema,
    ...(name === 'per_page' && { example: 25 }),
    ...(name === 'sort_by' && { example: 'domain' }),
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: mode === 'normal' ? 'sitesync websites API' : 'sitesync websites API (phpAnalytics v31 quirks)',
      version: '1',
      description:
        'The websites of a web-analytics service, as `sitesync serve` serves them. Every API request is authenticated with a Bearer key.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    security: [{ bearer: [] }],
    paths: {
      '/api/v1/websites': {
        get: {
          operationId: 'listWebsites',
          summary: "One page of the account's websites.",
          parameters: list,
          responses: { 200: json('WebsitePage', 'The page (past the last page: data is empty).'), ...common },
        },
        post: {
          operationId: 'storeWebsite',
          summary: 'Creates a website.',
          requestBody: body(mode, 'store', {
            minimal: { domain: 'openapi-minimal.example' },
            full: {
              domain: 'openapi-full.example',
              privacy: 2,
              password: 'correct-horse-battery',
              email: 1,
              exclude_bots: 0,
              exclude_params: 'utm_source\nutm_medium',
              exclude_ips: '192.0.2.1',
            },
            invalid: { domain: 'not a domain', privacy: 7 },
          }),
          responses: {
            201: json('WebsiteEnvelope', 'Created (the body says status 200).'),
            422: json('ValidationError', 'Invalid fields, a domain already taken, or the website limit reached.'),
            ...unstorable,
            ...common,
          },
        },
      },
      '/api/v1/websites/{id}': {
        parameters: [idParameter],
        get: {
          operationId: 'showWebsite',
          summary: 'One website.',
          responses: { 200: json('WebsiteEnvelope', 'The website.'), ...notFound, ...common },
        },
        put: update(mode, 'updateWebsite', missing, common),
        patch: update(mode, 'patchWebsite', missing, common),
        delete: {
          operationId: 'deleteWebsite',
          summary: 'Deletes a website (and its statistics): it cannot be undone.',
          responses: { 200: json('Deleted', 'Deleted.'), ...notFound, ...common },
        },
      },
    },
    components: {
      schemas: schemas(mode),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key of the account.' } },
    },
  };
}

function update(
  mode: ServerMode,
  operationId: string,
  missing: Record<string, unknown>,
  common: Record<string, unknown>,
) {
  return {
    operationId,
    summary: 'Changes the fields sent; the domain never changes.',
    requestBody: body(mode, 'update', {
      private: { privacy: 1, email: 0 },
      favourite: { favorite: 1 },
      invalid: { exclude_bots: 3 },
    }),
    responses: {
      200: json('WebsiteEnvelope', 'The updated website.'),
      422: json('ValidationError', 'Invalid fields.'),
      ...missing,
      ...common,
    },
  };
}
