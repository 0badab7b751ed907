// How the gate reads the Authorization header (auth.ts BEARER): the scheme in any case, one or more
// spaces before the key, nothing after it; anything else is no key (401 in the service's shape).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ failedAuthPerMinute: 0 });
});
afterAll(() => server.close());

const statusWith = async (authorization: string) => {
  const response = await fetch(`${server.url}/api/v1/websites`, {
    headers: { authorization, accept: 'application/json' },
  });
  await response.arrayBuffer();
  return response.status;
};

describe('the Authorization header', () => {
  it('takes the scheme in any case and one or more spaces before the key', async () => {
    for (const spelling of [`Bearer ${server.key}`, `bearer ${server.key}`, `BEARER   ${server.key}`])
      expect([spelling.replace(server.key, 'KEY'), await statusWith(spelling)]).toEqual([
        spelling.replace(server.key, 'KEY'),
        200,
      ]);
  });

  it('is no key with anything before the scheme, after the key, or without a space', async () => {
    for (const spelling of [
      `xBearer ${server.key}`,
      `Bearer ${server.key} more`,
      `Bearer${server.key}`,
      `Bearer\t${server.key}`,
    ])
      expect([spelling.replace(server.key, 'KEY'), await statusWith(spelling)]).toEqual([
        spelling.replace(server.key, 'KEY'),
        401,
      ]);
    const unauthenticated = await request(server.url, 'GET', '/api/v1/websites', { key: null });
    expect(unauthenticated.body).toEqual({ message: 'Unauthenticated.' });
  });
});
