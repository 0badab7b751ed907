/**
 * `GET /api/v1/account` (issue 24 item 9, the part sitesync reads): in quirks
 * mode the account and its plan's features, as the deployed service answers;
 * `GET /api/v1/stats/{id}` (an empty page: no statistics are kept). The contract has
 * neither route, so normal mode answers 404.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { client, insertWebsite, request, startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /api/v1/account', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it('quirks: the account and plan.features.websites (-1: no limit), behind the key like every API route', async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31' });
    const unlimited = await client(server)('GET', '/api/v1/account');
    expect(unlimited.status).toBe(200);
    expect(unlimited.body).toMatchObject({
      data: { id: server.accountId, plan: { features: { websites: -1, api: 1 } } },
      status: 200,
    });
    const limited = await server.createAccount({ websiteLimit: 5 });
    const answer = await request(server.url, 'GET', '/api/v1/account', { key: limited.key });
    expect(answer.body.data).toMatchObject({ id: limited.id, plan: { features: { websites: 5 } } });
    expect((await request(server.url, 'GET', '/api/v1/account')).status).toBe(401);
  });

  it('normal mode: 404, as for any route the contract does not have', async () => {
    server = await startTestServer();
    for (const path of ['/api/v1/account', '/api/v1/stats/1?name=browser&from=2026-01-01&to=2026-01-31']) {
      const answer = await client(server)('GET', path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ message: 'Resource not found.', status: 404 });
    }
  });

  it('quirks: GET /api/v1/stats/{id} checks its parameters, then the website; no statistics: an empty page', async () => {
    server = await startTestServer({ quirks: 'phpanalytics-v31' });
    const api = client(server);
    const query = '?name=browser&from=2026-01-01&to=2026-01-31';
    const partial = await api('GET', '/api/v1/stats/1?name=browser&to=2026-01-31');
    expect(partial.body).toEqual({ message: { from: ['The from field is required.'] }, status: 422 });
    const other = await server.createAccount();
    const theirs = await insertWebsite(server, 'stats-theirs.example', { accountId: other.id });
    const foreign = await api('GET', `/api/v1/stats/${theirs}${query}`);
    expect(foreign.body).toEqual({ message: 'Resource not found.', status: 404 });
    const mine = await insertWebsite(server, 'stats-mine.example');
    const complete = await api('GET', `/api/v1/stats/${mine}${query}`);
    expect(complete.status).toBe(200);
    expect(complete.body).toMatchObject({ current_page: 1, data: [], total: 0, status: 200 });
    expect((await request(server.url, 'GET', `/api/v1/stats/${mine}${query}`)).status).toBe(401);
  });
});
