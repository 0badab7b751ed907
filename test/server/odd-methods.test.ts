// Methods the service does not serve (issue 33, item 8): `QUERY` without a Content-Type was a 500
// for anyone, logged as an error and counted as a store error, so anyone could fire the
// high-error-ratio alert. Every method node's parser accepts is answered 405 with Allow on a route
// (404 where no route is), its body never read, in both modes, on both backends (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(['normal', 'phpanalytics-v31'] as const)('odd methods (%s)', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let server: TestServer;
  /** Lines of the request log at level error (5xx answers and unexpected errors). */
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      ...(quirks && { quirks: mode }),
      metricsAddr: '127.0.0.1:0',
      logLevel: 'error',
      log: (line) => errors.push(line),
    });
  });
  afterAll(() => server.close());

  const send = (method: string, path: string, headers: string[] = []) =>
    sendRaw(
      server.url,
      [
        `${method} ${path} HTTP/1.1`,
        'Host: x',
        'Connection: close',
        'Accept: application/json',
        ...headers,
        '',
        '',
      ].join('\r\n'),
    );
  const keyed = () => [`Authorization: Bearer ${server.key}`];

  // Quirks mode has no probes on the API port (they are on --metrics-addr), and its 405 names the
  // path as requested, as Laravel does (issue 37).
  const ROUTES: [path: string, route: string, allowed: string][] = [
    ...(quirks
      ? []
      : ([
          ['/health', 'health', 'GET, HEAD'],
          ['/ready', 'ready', 'GET, HEAD'],
        ] as [string, string, string][])),
    ['/api/v1/websites', 'api/v1/websites', 'GET, HEAD, POST'],
    ['/api/v1/websites/1', quirks ? 'api/v1/websites/1' : 'api/v1/websites/{id}', 'GET, HEAD, PUT, PATCH, DELETE'],
  ];
  /** A route of both modes for the metrics check. */
  const probe = quirks ? '/api/v1/websites' : '/ready';

  it.each(['QUERY', 'TRACE', 'PROPFIND', 'SEARCH', 'M-SEARCH', 'PURGE'])(
    'answers %s on every route 405 with Allow, in the service shape, without a Content-Type or with a body',
    async (method) => {
      for (const [path, route, allowed] of ROUTES) {
        const body = '{"domain":"odd.example"}';
        for (const extra of [[], ['Content-Type: application/json', `Content-Length: ${body.length}`, '', body]]) {
          const headers = [...keyed(), ...extra];
          const answer = await send(method, path, extra.length === 0 ? headers : headers.slice(0, -2));
          expect({ method, path, status: answer.status, allow: answer.headers.allow, body: answer.body }).toEqual({
            method,
            path,
            status: 405,
            allow: allowed,
            body: {
              message: `The ${method} method is not supported for route ${route}. Supported methods: ${allowed}.`,
            },
          });
        }
      }
    },
  );

  it('answers an odd method on an unknown path 404, and an anonymous one on the API as any other method', async () => {
    expect(await send('QUERY', '/nowhere', keyed())).toMatchObject({
      status: 404,
      body: quirks
        ? { message: 'The route nowhere could not be found.' }
        : { message: 'Resource not found.', status: 404 },
    });
    // Normal mode authenticates every API request first; the deployed router answers 405 before its middleware.
    const anonymous = await send('QUERY', '/api/v1/websites');
    expect(anonymous.status).toBe(quirks ? 405 : 401);
  });

  it('logs none of them as an error, and counts no 500 and no store error', async () => {
    for (const method of ['QUERY', 'TRACE', 'PROPFIND']) await send(method, probe);
    expect(errors).toEqual([]);
    const text = await (await fetch(server.server.metricsUrl!)).text();
    expect(text).not.toMatch(/sitesync_http_requests_total\{[^}]*status="5\d\d"\}/);
    expect(text).not.toMatch(/sitesync_store_errors_total\{[^}]*\} [1-9]/);
    const series = `sitesync_http_requests_total{route="${probe}",method="QUERY",status="405"}`;
    expect(text).toMatch(new RegExp(`${series.replace(/[{}/]/g, '\\$&')} [1-9]`));
  });
});
