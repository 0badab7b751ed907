// The OpenAPI 3.1 document at GET /api/v1/openapi.json (quirks mode: on the operator's listener,
// --metrics-addr, since the deployed service has no such path), in both modes: valid
// for an OpenAPI parser, the same as `sitesync serve openapi` prints, and true:
// every request example in it, replayed against the server, gets a documented
// status whose body matches the documented response schema.
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { ServerMode } from '../../src/server/index.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked generically here
type Doc = any;

const ORDER = ['post', 'get', 'put', 'patch', 'delete'];

interface Replay {
  operation: string;
  method: string;
  path: string;
  contentType?: string;
  body?: Record<string, unknown>;
}

/** Every request the document's examples describe, creates first (so id 1 exists), deletes last. */
function replays(doc: Doc): Replay[] {
  const out: Replay[] = [];
  for (const [template, item] of Object.entries<Doc>(doc.paths)) {
    for (const method of ORDER) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      let path = template;
      const query = new URLSearchParams();
      for (const parameter of parameters) {
        if (parameter.example === undefined) continue;
        if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, String(parameter.example));
        if (parameter.in === 'query') query.set(parameter.name, String(parameter.example));
      }
      if (query.size > 0) path += `?${query}`;
      const content = operation.requestBody?.content ?? {};
      const bodies = Object.entries<Doc>(content).flatMap(([contentType, media]) =>
        Object.values<Doc>(media.examples ?? {}).map((example) => ({ contentType, body: example.value })),
      );
      if (bodies.length === 0) out.push({ operation: operation.operationId, method, path });
      for (const body of bodies) out.push({ operation: operation.operationId, method, path, ...body });
    }
  }
  return out.sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method));
}

function encode(replay: Replay): { form?: string; json?: Record<string, unknown> } {
  if (!replay.body) return {};
  if (replay.contentType === 'application/json') return { json: replay.body };
  const form = new URLSearchParams(Object.entries(replay.body).map(([k, v]): [string, string] => [k, String(v)]));
  return { form: form.toString() };
}

describe.each<ServerMode>(['normal', 'phpanalytics-v31'])('the OpenAPI document (%s)', (mode) => {
  let server: TestServer;
  let doc: Doc;
  /** Where the document is served: the API port, or in quirks mode the operator's listener. */
  let served: string;
  beforeAll(async () => {
    server = await startTestServer(mode === 'normal' ? {} : { quirks: mode, metricsAddr: '127.0.0.1:0' });
    served = mode === 'normal' ? server.url : server.server.metricsUrl!.replace(/\/metrics$/, '');
    doc = (await request(served, 'GET', '/api/v1/openapi.json')).body;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is served without a key and validates as OpenAPI 3.1', async () => {
    const answer = await request(served, 'GET', '/api/v1/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.body).toEqual(doc);
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    // The parser does tell: a parameter in an unknown place is refused.
    const broken = structuredClone(doc);
    broken.paths['/api/v1/websites'].get.parameters[0].in = 'body';
    expect((await validate(broken)).valid).toBe(false);
    const operations = Object.values<Doc>(doc.paths).flatMap((item) =>
      ORDER.filter((method) => item[method]).map((method) => item[method].operationId),
    );
    expect(operations).toEqual([
      'storeWebsite',
      'listWebsites',
      'showWebsite',
      'updateWebsite',
      'patchWebsite',
      'deleteWebsite',
    ]);
    // Parameters with their defaults, and the documented error shapes.
    const list = doc.paths['/api/v1/websites'].get;
    const defaults = Object.fromEntries(list.parameters.map((p: Doc) => [p.name, p.schema.default]));
    expect(defaults).toMatchObject({ page: 1, per_page: 10, sort_by: 'id', sort: 'desc', search_by: 'domain' });
    const store = doc.paths['/api/v1/websites'].post.requestBody.content['application/json'].schema;
    expect(store.properties.privacy.default).toBe(mode === 'normal' ? 1 : null);
    expect(store.properties.exclude_bots.default).toBe(1);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Website', 'WebsitePage', 'ValidationError', 'Error', 'Deleted']),
    );
  });

  it('is what `sitesync serve openapi` prints', async () => {
    const io = captureIo();
    const args = mode === 'normal' ? ['serve', 'openapi'] : ['serve', 'openapi', '--quirks', mode];
    expect(await main(args, io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual(doc);
  });

  it('answers every request example with a documented status and body', async () => {
    const resolved = await dereference(structuredClone(doc));
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const seen = new Map<string, Set<number>>();
    const all = replays(resolved);
    expect(all.length).toBeGreaterThanOrEqual(12);
    for (const replay of all) {
      const answer = await request(server.url, replay.method.toUpperCase(), replay.path, {
        key: server.key,
        ...encode(replay),
      });
      const operation = (resolved.paths as Doc)[
        Object.keys(resolved.paths).find((t) => resolved.paths[t][replay.method]?.operationId === replay.operation)!
      ][replay.method];
      const documented = operation.responses[String(answer.status)];
      const what = `${replay.operation} ${replay.contentType ?? ''} ${JSON.stringify(replay.body ?? {})} → ${answer.status} ${answer.text}`;
      expect(documented, what).toBeDefined();
      const schema = documented.content?.['application/json']?.schema;
      if (schema) expect(ajv.validate(schema, answer.body), `${what}\n${ajv.errorsText()}`).toBe(true);
      seen.set(replay.operation, (seen.get(replay.operation) ?? new Set()).add(answer.status));
    }
    // Each operation succeeded at least once, and the invalid examples were refused as documented.
    expect(Object.fromEntries([...seen].map(([op, statuses]) => [op, [...statuses].sort()]))).toEqual({
      listWebsites: [200],
      storeWebsite: [201, 422],
      showWebsite: [200],
      updateWebsite: [200, 422],
      patchWebsite: [200, 422],
      deleteWebsite: [200],
    });
  });
});
