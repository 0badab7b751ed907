/**
 * `--timeout SECONDS` (and SITESYNC_TIMEOUT): the deadline of one request,
 * retries included, against a server that never answers (the fault proxy's
 * stall in front of the reference server). The deadline shows by its message
 * (the 0.3 s names itself), never by measuring time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { config, workspace } from './apply-support.js';

describe('--timeout', () => {
  let server: TestServer;
  let proxy: FaultProxy;
  beforeEach(async () => {
    server = await startTestServer();
    proxy = await startFaultProxy({ target: server.url, plan: () => 'stall' });
  });
  afterEach(async () => {
    await proxy.close();
    await server.close();
  });

  function stalled(env: Record<string, string> = {}) {
    const ws = workspace(server, { SITESYNC_URL: proxy.url, ...env });
    ws.write('websites.yaml', config({ 'a.example': '' }));
    return ws;
  }

  const DEADLINE =
    'error: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 to http://127.0.0.1:PORT: no complete answer within 0.3 s\n';
  const deadline = () => DEADLINE.replace('PORT', new URL(proxy.url).port);

  it('ends a request to a stalled server at the deadline given, with one line naming it', async () => {
    const run = await stalled().run(['plan', '--timeout', '0.3']);
    expect(run.err).toBe(deadline());
    expect(run.code).toBe(1);
  });

  it('SITESYNC_TIMEOUT is the default; --timeout wins over it', async () => {
    expect((await stalled({ SITESYNC_TIMEOUT: '0.3' }).run(['plan'])).err).toBe(deadline());
    expect((await stalled({ SITESYNC_TIMEOUT: '3600' }).run(['plan', '--timeout', '0.3'])).err).toBe(deadline());
  });

  it.each([
    [['--timeout', '0'], {}, '--timeout must be a number of seconds from 0.1 to 3600, not "0"'],
    [['--timeout', 'soon'], {}, '--timeout must be a number of seconds from 0.1 to 3600, not "soon"'],
    [['--timeout', '7200'], {}, '--timeout must be a number of seconds from 0.1 to 3600, not "7200"'],
    [[], { SITESYNC_TIMEOUT: '-5' }, 'SITESYNC_TIMEOUT must be a number of seconds from 0.1 to 3600, not "-5"'],
  ])('refuses %j %j before any request', async (argv, env, message) => {
    const run = await stalled(env).run(['plan', ...argv]);
    expect(run.err).toBe(`error: ${message}\n`);
    expect(run.code).toBe(1);
    expect(proxy.log).toEqual([]);
  });
});
