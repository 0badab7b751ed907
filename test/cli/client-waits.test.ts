/**
 * How the CLI surfaces the client's waits: a long wait
 * is announced on stderr at the default log level, and SIGINT/SIGTERM during
 * that wait ends the command with one line and exit 130, never a stack trace.
 * The interrupt comes on an event (the wait has begun), never after a timer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { workspace } from './apply-support.js';

describe('a long client wait, then Ctrl-C', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    for (let i = 1; i <= 101; i++) await insertWebsite(server, `site-${i}.example.com`);
    // main() loads a command's module on first use: load it here, so the 300 ms below is the command's own time.
    await import('../../src/cli/commands/export.js');
  });
  afterAll(() => server.close());

  it('export prints the wait, then exits 130 with one interrupted line', async () => {
    const ws = workspace(server);
    const controller = new AbortController();
    const { code, err } = await ws.run(['export', '--rate-limit', '1'], {
      signal: controller.signal,
      onStderr: (text) => text.includes('waiting 61 s') && controller.abort(new Error('SIGTERM')),
    });
    expect(err).toBe(
      'warn: pacing at 1 requests/min: waiting 61 s\n' +
        'error: interrupted: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=2 was not completed (SIGTERM)\n',
    );
    expect(code).toBe(130);
  });

  it('--log-level error keeps the wait quiet', async () => {
    const ws = workspace(server);
    const controller = new AbortController();
    // No notice to react to: the event is the client starting its minute-long pacing timer.
    const restore = onMinuteTimer(() => controller.abort(new Error('SIGINT')));
    const { code, err } = await ws
      .run(['export', '--rate-limit', '1', '--log-level', 'error'], { signal: controller.signal })
      .finally(restore);
    expect(err).toBe(
      'error: interrupted: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=2 was not completed (SIGINT)\n',
    );
    expect(code).toBe(130);
  });
});

/** Calls `then` once a timer of about a minute starts (the pacing wait of 1 request/min); returns the undo. */
function onMinuteTimer(then: () => void): () => void {
  const original = globalThis.setTimeout;
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
    // The client's other timers are its deadlines: 10 s, 30 s and 120 s.
    if (ms !== undefined && ms > 50_000 && ms < 65_000) queueMicrotask(then);
    return original(callback, ms);
  }) as typeof setTimeout);
  return () => spy.mockRestore();
}
