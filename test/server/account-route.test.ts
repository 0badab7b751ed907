/**
 * `GET /api/v1/account` (issue 24 item 9, the part sitesync reads): in quirks
 * mode the account and its plan's features, as the deployed service answers;
 * the contract has no such route, so normal mode answers 404.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { client, request, startTestServer, type TestServer } from '../helpers/server.js';

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
    const answer = await client(server)('GET', '/api/v1/account');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ message: 'Resource not found.', status: 404 });
  });
});
