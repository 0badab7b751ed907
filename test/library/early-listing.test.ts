// Listing while parsing through the library (docs/architecture.md): plan's listing starts before the
// configuration is read; a failing configuration or an aborted signal ends it cleanly, with nothing written.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { plan } from '../../src/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDirWith } from '../helpers/temp.js';

describe('library plan lists while it parses', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let requests: Array<{ method: string; path: string }> = [];
  beforeAll(async () => {
    server = await startTestServer({ log: (line) => requests.push(JSON.parse(line)) });
    env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key };
  });
  afterAll(() => server.close());
  beforeEach(() => {
    requests = [];
  });

  test('an invalid configuration rejects with its file:line; at most the listing was sent, nothing written', async () => {
    const cwd = tempDirWith('library-early', {
      'websites.yaml': 'version: 1\nwebsites:\n  - domain: a.example.com\n    colour: red\n',
    });
    const failed = plan({ cwd, env });
    await expect(failed).rejects.toThrow(/invalid|problem|error/i);
    await failed.catch((error: { details?: { problems?: Array<{ line?: number }> } }) => {
      expect(error.details?.problems?.[0]).toMatchObject({ line: 4 });
    });
    expect(requests.every((request) => request.method === 'GET' && request.path === '/api/v1/websites')).toBe(true);
    expect(requests.length).toBeLessThanOrEqual(1);
  });

  test('an aborted signal stops plan before any request', async () => {
    const cwd = tempDirWith('library-early', { 'websites.yaml': 'version: 1\nwebsites:\n  - domain: a.example.com\n' });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(plan({ cwd, env, signal: controller.signal })).rejects.toThrow();
    expect(requests).toEqual([]);
  });
});
