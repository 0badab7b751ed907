// Issue 37: quirks mode now reproduces the deployed service's method override, path casting,
// 500s, CORS, Host-built links and merged query input. The default mode keeps the contract: each
// row here is one of those requests, pinned to the strict answer it gets without --quirks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/raw-http.js';
import { insertWebsite, type RawRequest, request, startTestServer, type TestServer } from '../helpers/server.js';

describe('the default mode stays strict where quirks mode follows the deployed service', () => {
  let server: TestServer;
  let id: number;
  const api = (method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
    request(server.url, method, path, { key: server.key, ...options });

  beforeAll(async () => {
    server = await startTestServer();
    id = await insertWebsite(server, 'strict.example');
    await insertWebsite(server, 'favourite.strict.example', { values: { favoritedAt: '2026-01-02T03:04:05' } });
  });
  afterAll(() => server.close());

  it('no method override: a POST with _method or X-HTTP-Method-Override is a POST (405), nothing changes', async () => {
    const overrides: RawRequest[] = [
      { form: { _method: 'DELETE' } },
      { headers: { 'x-http-method-override': 'DELETE' } },
      { form: { _method: 'PUT', privacy: '0' } },
    ];
    for (const options of overrides) {
      const answer = await api('POST', `/api/v1/websites/${id}`, options);
      expect(answer.status).toBe(405);
    }
    expect((await api('GET', `/api/v1/websites/${id}`)).body.data).toMatchObject({
      domain: 'strict.example',
      privacy: 1,
    });
  });

  it('no admin role: user_id is an unknown field, ignored, whoever sends it', async () => {
    const admin = await server.createAccount({ admin: true });
    const own = await insertWebsite(server, 'admin.strict.example', { accountId: admin.id });
    const answer = await request(server.url, 'PUT', `/api/v1/websites/${own}`, {
      key: admin.key,
      form: { user_id: String(server.accountId), privacy: '0' },
    });
    expect([answer.status, answer.body.data?.privacy]).toEqual([200, 0]);
  });

  it('no id casting: /websites/{id}abc and /websites/{id}.0 name no website', async () => {
    for (const suffix of ['abc', '.0', 'e0']) {
      expect((await api('GET', `/api/v1/websites/${id}${suffix}`)).status).toBe(404);
      expect((await api('DELETE', `/api/v1/websites/${id}${suffix}`)).status).toBe(404);
    }
  });

  it('no 500s for what quirks mode answers 500: ?search[]=x, email=300', async () => {
    expect((await api('GET', '/api/v1/websites?search[]=x')).status).toBe(200);
    const email = await api('POST', '/api/v1/websites', { form: { domain: 'email.strict.example', email: '300' } });
    expect(email.body).toEqual({ message: { email: ['The email field must be between 0 and 1.'] }, status: 422 });
  });

  it("the contract's bodies and list parameters: no multipart, no query input, per_page and favorite as written", async () => {
    const multipart = await api('POST', '/api/v1/websites', {
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(multipart.status).toBe(415);
    const query = await api('POST', '/api/v1/websites?domain=query.strict.example');
    expect(query.body).toEqual({ message: { domain: ['The domain field is required.'] }, status: 422 });
    const page = await api('GET', '/api/v1/websites?per_page=25.0&favorite=2');
    expect(page.body.meta.per_page).toBe(10);
    expect(page.body.meta.total).toBe(2);
  });

  it('one spelling per path, authentication first, no CORS, JSON as JSON.stringify writes it', async () => {
    expect((await api('GET', '/api/v1/%77ebsites')).body.meta.path).toBe(`${server.url}/api/v1/websites`);
    expect((await api('GET', '//api/v1/websites')).status).toBe(200);
    const unknown = await request(server.url, 'GET', '/api/v2/websites', {
      headers: { origin: 'https://app.example' },
    });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('vary')).toBeNull();
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await request(server.url, 'OPTIONS', '/api/v1/websites', {
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(401);
    const ajax = await request(server.url, 'GET', '/api/v1/websites', {
      accept: null,
      headers: { 'x-requested-with': 'XMLHttpRequest' },
    });
    expect(ajax.status).toBe(401);
    const list = await api('GET', '/api/v1/websites');
    expect(list.text).toContain(`"first":"${server.url}/api/v1/websites?`);
    expect(Object.keys(list.body.data[0]).slice(2, 5)).toEqual(['privacy', 'password', 'email']);
    expect(list.text).not.toContain('\\/');
  });

  it('links never come from the Host header; /health, /ready and the OpenAPI document stay on the API port', async () => {
    const answer = await rawGet(server.url, '/api/v1/websites', {
      host: 'other.example:9999',
      authorization: `Bearer ${server.key}`,
    });
    expect(answer.body.meta.path).toBe(`${server.url}/api/v1/websites`);
    expect((await request(server.url, 'GET', '/ready')).body).toEqual({ status: 'ready' });
    expect((await request(server.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
    expect((await request(server.url, 'GET', '/api/v1/openapi.json')).status).toBe(200);
  });
});
