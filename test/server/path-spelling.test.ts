// Authentication does not depend on how the path is spelled (issue 9): every spelling of an API
// path is 401 without a key and, with one, gets exactly the answer of the plain spelling.
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticatedAccount } from '../../src/server/http/auth.js';
import { HttpError } from '../../src/server/http/http-error.js';
import { rawGet } from '../helpers/raw-http.js';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';

describe.each(['normal', 'phpanalytics-v31'] as const)('path spellings (%s)', (mode) => {
  const quirks = mode === 'phpanalytics-v31';
  let server: TestServer;
  let id: number;

  beforeAll(async () => {
    server = await startTestServer(mode === 'normal' ? {} : { quirks: mode });
    id = await insertWebsite(server, `spelled-${mode}.example`);
  });
  afterAll(() => server.close());

  /**
   * [spelling, what it names]: normal mode reduces every spelling to one canonical path. Quirks
   * mode routes as Laravel does (issue 37): escapes decoded (`%2F` too), but `//` and dot segments
   * kept, so those spellings are no route ('none', the router's 404 before authentication) or, under
   * /api/v1/, the authenticated group's fallback ('fallback', 401 then 404).
   */
  const spellings = (): [string, string][] => [
    ['/%61pi/v1/websites', '/api/v1/websites'],
    ['/api/v1/%77ebsites', '/api/v1/websites'],
    ['/%61%70%69/v1/websites?per_page=25', '/api/v1/websites?per_page=25'],
    ['//api/v1/websites', quirks ? 'none' : '/api/v1/websites'],
    ['/api//v1///websites', quirks ? 'none' : '/api/v1/websites'],
    ['/x/../api/v1/websites', quirks ? 'none' : '/api/v1/websites'],
    ['/api/./v1/websites', quirks ? 'none' : '/api/v1/websites'],
    ['/api/v1/%2E%2E/v1/websites', quirks ? 'fallback' : '/api/v1/websites'],
    ['/api/v1/websites/', '/api/v1/websites'],
    [`http://${new URL(server.url).host}/api/v1/websites`, '/api/v1/websites'],
    ['http://elsewhere.example/api/v1/websites', '/api/v1/websites'],
    [`/%61pi/v1/websites/${id}`, `/api/v1/websites/${id}`],
    [`/api/v1/websites/${id}/`, `/api/v1/websites/${id}`],
    ['/api/v1%2Fwebsites', quirks ? '/api/v1/websites' : '/api/v1%2Fwebsites'],
  ];
  const noRoute = (target: string) =>
    quirks
      ? { message: `The route ${target.split('?', 1)[0]!.replace(/^\/+|\/+$/g, '')} could not be found.` }
      : { message: 'Resource not found.', status: 404 };

  it(`answers 401${quirks ? '' : ' with WWW-Authenticate: Bearer'} to every spelling without a key`, async () => {
    for (const [target, plain] of spellings()) {
      const answer = await rawGet(server.url, target);
      // The router answers a path no route matches with 404, before authentication: nothing to see there.
      const expected =
        plain === 'none'
          ? { status: 404, body: quirks ? noRoute(target) : { message: 'Resource not found.', status: 404 } }
          : { status: 401, body: { message: 'Unauthenticated.' } };
      expect({ target, status: answer.status, body: answer.body }).toEqual({ target, ...expected });
      expect(answer.headers['www-authenticate']).toBe(quirks ? undefined : 'Bearer');
    }
    const head = await fetch(`${server.url}/%61pi/v1/websites`, {
      method: 'HEAD',
      headers: { accept: 'application/json' },
    });
    expect(head.status).toBe(401);
  });

  it('answers every spelling with a key exactly as the plain spelling (quirks: its data; links keep the path as sent)', async () => {
    const auth = { authorization: `Bearer ${server.key}` };
    for (const [target, plain] of spellings()) {
      if (plain === 'none' || plain === 'fallback') {
        const answer = await rawGet(server.url, target, auth);
        const body = plain === 'none' ? noRoute(target) : { message: 'Resource not found.', status: 404 };
        expect({ target, status: answer.status, body: answer.body }).toEqual({ target, status: 404, body });
        continue;
      }
      const expected = await rawGet(server.url, plain, auth);
      const answer = await rawGet(server.url, target, auth);
      expect({ target, status: answer.status, data: answer.body.data }).toEqual({
        target,
        status: expected.status,
        data: expected.body.data,
      });
      if (!quirks) expect(answer.body).toEqual(expected.body);
    }
    expect((await rawGet(server.url, '/%61pi/v1/websites', auth)).status).toBe(200);
  });

  it('answers 404 to a path that is no API route, with or without a key', async () => {
    // Normal mode: %2F is data, not a separator. Quirks mode decodes it (rawurldecode), as Laravel does.
    const targets = ['/API/v1/websites', '/apiv1/websites', ...(quirks ? [] : ['/api%2Fv1%2Fwebsites'])];
    for (const target of targets) {
      for (const headers of [{}, { authorization: `Bearer ${server.key}` }] as Record<string, string>[]) {
        const answer = await rawGet(server.url, target, headers);
        expect({ target, status: answer.status, body: answer.body }).toEqual({
          target,
          status: 404,
          body: noRoute(target),
        });
      }
    }
  });

  it(`answers OPTIONS on an API path with ${quirks ? '200 and Allow, before' : '405 and Allow, after'} authentication`, async () => {
    const options = async (path: string, key?: string) =>
      fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { accept: 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
      });
    expect((await options('/api/v1/websites')).status).toBe(quirks ? 200 : 401);
    for (const [path, allow] of [
      ['/api/v1/websites', 'GET, HEAD, POST'],
      [`/api/v1/websites/${id}`, 'GET, HEAD, PUT, PATCH, DELETE'],
    ] as const) {
      const response = await options(path, server.key);
      // Laravel's router answers OPTIONS itself: 200, Allow without spaces.
      expect(response.status).toBe(quirks ? 200 : 405);
      expect(response.headers.get('allow')).toBe(quirks ? allow.replaceAll(', ', ',') : allow);
    }
  });
});

describe('a handler reached without an account', () => {
  it('answers 401, not 500', () => {
    const request = { account: null } as unknown as FastifyRequest;
    const error = (() => {
      try {
        authenticatedAccount(request);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).statusCode).toBe(401);
  });
});
