/**
 * How the CLI surfaces the client's waits (acceptance findings): a long wait
 * is announced on stderr at the default log level, and SIGINT/SIGTERM during
 * that wait ends the command with one line and exit 130, never a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { workspace } from './apply-support.js';

describe('a long client wait, then Ctrl-C', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    for (let i = 1; i <= 101; i++) await insertWebsite(server, `site-${i}.example.com`);
  });
  afterAll(() => server.close());

  it('export prints the wait, then exits 130 with one interrupted line', async () => {
    const ws = workspace(server);
    const controller = new AbortController();
    const run = ws.run(['export', '--rate-limit', '1'], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('SIGTERM')), 300);
    const { code, err } = await run;
    expect(err).toBe(
      'warn: pacing at 1 requests/min: waiting 61 s\n' +
        'error: interrupted: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=2 was not completed (SIGTERM)\n',
    );
    expect(code).toBe(130);
  });

  it('--log-level error keeps the wait quiet', async () => {
    const ws = workspace(server);
    const controller = new AbortController();
    const run = ws.run(['export', '--rate-limit', '1', '--log-level', 'error'], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('SIGINT')), 300);
    const { code, err } = await run;
    expect(err).toBe(
      'error: interrupted: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=2 was not completed (SIGINT)\n',
    );
    expect(code).toBe(130);
  });
});
