/**
 * Issue 25, "listing while parsing": when the URL does not come from the
 * configuration (--url or SITESYNC_URL), plan sends the listing before the
 * configuration is read. Proven by events: the configuration is a FIFO that
 * is written only once the reference server has answered the listing. A
 * configuration that then fails still fails as before: the same messages
 * (file:line), the same exit code, and nothing but the one listing was sent.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertWebsites } from '../helpers/stored-website.js';
import { workspace } from './apply-support.js';

const INVALID = 'version: 1\nwebsites:\n  - domain: a.example.com\n    colour: red\n  - domain: b.example.com\n';

describe('plan lists while the configuration is read', () => {
  let server: TestServer;
  let requests: Array<{ method: string; path: string }> = [];
  let listed: () => void = () => {};
  beforeAll(async () => {
    server = await startTestServer({
      log: (line) => {
        requests.push(JSON.parse(line));
        listed();
      },
    });
    await insertWebsites(server.server, server.key, ['a.example.com', 'c.example.com']);
  }, 60_000);
  afterAll(() => server.close());
  beforeEach(() => {
    requests = [];
  });

  /** Runs `plan -f FIFO`, and writes `text` into the FIFO only after the server has answered a request. */
  async function planFromFifo(text: string, env: Record<string, string> = {}) {
    const ws = workspace(server, env);
    const fifo = join(ws.dir, 'websites.yaml');
    execFileSync('mkfifo', [fifo]);
    const answered = new Promise<void>((resolve) => {
      listed = resolve;
    });
    const running = ws.run(['plan', '-f', fifo, '--format', 'json']);
    await answered; // never resolves if the listing waited for the configuration: the test times out
    const seenBeforeWriting = requests.length;
    const writer = createWriteStream(fifo);
    writer.end(text);
    await finished(writer);
    return { run: await running, seenBeforeWriting, ws };
  }

  it('the listing is answered before the configuration is written, and the plan is the usual one', async () => {
    const { run, seenBeforeWriting } = await planFromFifo('version: 1\nwebsites:\n  - domain: a.example.com\n');
    expect(seenBeforeWriting).toBe(1);
    expect(run.code).toBe(0);
    expect(requests).toEqual([expect.objectContaining({ method: 'GET', path: '/api/v1/websites', status: 200 })]);
    expect(JSON.parse(run.out).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it('a configuration failing validation after the listing fails as before, with only the listing sent', async () => {
    const { run } = await planFromFifo(INVALID);
    expect(requests.map((request) => request.method)).toEqual(['GET']);
    // As before: an api.url the scan does not read (a flow mapping; last, so the lines match) means no early listing.
    requests = [];
    const sequential = workspace(server, { SITESYNC_URL: '' });
    sequential.write('websites.yaml', `${INVALID}api: { url: ${server.url} }\n`);
    const before = await sequential.run(['plan', '--format', 'json']);
    expect(requests).toEqual([]);
    expect(run.err).toContain('websites.yaml:4');
    expect(run.code).toBe(before.code);
    expect(run.err).toBe(before.err);
  });

  it('with the URL only in api.url, the plan is the usual one, from one listing', async () => {
    const ws = workspace(server, { SITESYNC_URL: '', SITESYNC_ALLOWED_ORIGINS: server.url });
    ws.write('websites.yaml', `version: 1\napi:\n  url: ${server.url}\nwebsites:\n  - domain: a.example.com\n`);
    const run = await ws.run(['plan', '--format', 'json']);
    expect(run.code).toBe(0);
    expect(requests).toEqual([expect.objectContaining({ method: 'GET', path: '/api/v1/websites', status: 200 })]);
    expect(JSON.parse(run.out).summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it('no listing starts when --sync-write-only names a site: its typo is refused before any request', async () => {
    const ws = workspace(server);
    ws.write('websites.yaml', 'version: 1\nwebsites:\n  - domain: a.example.com\n');
    const run = await ws.run(['plan', '--sync-write-only', 'a.exmaple.com']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('--sync-write-only a.exmaple.com matches no website in the configuration');
    expect(requests).toEqual([]);
  });
});
