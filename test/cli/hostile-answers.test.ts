/**
 * Issue 23 item 12: a server streaming an endless 200 JSON body kept
 * `sitesync plan --timeout 5` running past 60 s at 4.37 GB. One answer is
 * read up to MAX_RESPONSE_BYTES and then refused, once, with a clear error;
 * `--timeout` covers the whole answer, body included. The hostile server here
 * stops by itself (a bounded number of chunks), whatever the client does.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES } from '../../src/api/transport.js';
import type { TestServer } from '../helpers/server.js';
import { config, type Workspace, workspace } from './apply-support.js';

/** Inside one string value: few JSON values, so the byte limit is what stops it (test/api/json-bounds.test.ts: the value limit). */
const CHUNK = Buffer.from('a'.repeat(43_000));
/** Past the limit with room to spare; the server ends the body here if nobody stopped reading. */
const MAX_CHUNKS = Math.ceil((3 * MAX_RESPONSE_BYTES) / CHUNK.length);

interface Hostile {
  url: string;
  requests: number;
  /** Bytes of body the server managed to write, over all requests. */
  written: number;
  close(): Promise<void>;
}

/** A server answering every request 200 with `{"data":[` and then `body(res)` (which must end by itself). */
async function hostileServer(
  body: (res: ServerResponse, hostile: Hostile) => void,
  headers: Record<string, string> = {},
): Promise<Hostile> {
  let server: Server | undefined;
  const hostile: Hostile = {
    url: '',
    requests: 0,
    written: 0,
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
  server = createServer((_req, res) => {
    hostile.requests++;
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.write('{"data":[');
    body(res, hostile);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  hostile.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return hostile;
}

/** As fast as the socket takes it, up to MAX_CHUNKS; stops when the client goes away. */
function flood(res: ServerResponse, hostile: Hostile): void {
  let sent = 0;
  res.write('{"id":1,"domain":"');
  const pump = (): void => {
    while (sent < MAX_CHUNKS && !res.destroyed) {
      sent++;
      hostile.written += CHUNK.length;
      if (!res.write(CHUNK)) return; // wait for 'drain'
    }
    if (!res.destroyed) res.end('"}]}');
  };
  res.on('drain', pump);
  pump();
}

/** One chunk every 20 ms, at most 3,000 of them (a minute): endless for a 0.5 s deadline, bounded for the test. */
function trickle(res: ServerResponse, hostile: Hostile): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent++ >= 3_000) {
      clearInterval(timer);
      if (!res.destroyed) res.end(']}');
      return;
    }
    hostile.written += 43;
    res.write(CHUNK.subarray(0, 43));
  }, 20);
  res.on('close', () => clearInterval(timer));
}

describe('an endless 200 answer', () => {
  let hostile: Hostile | undefined;
  afterEach(async () => {
    await hostile?.close();
    hostile = undefined;
  });

  function planAgainst(url: string): Workspace {
    // workspace() reads only the URL and the key of a server.
    const server = { url, key: 'hostile-answer-key-0123456789' } as TestServer;
    const ws = workspace(server);
    ws.write('websites.yaml', config({ 'a.example': '' }));
    return ws;
  }

  it(`is refused past ${MAX_RESPONSE_BYTES} bytes, at the first attempt, with one line saying why`, async () => {
    hostile = await hostileServer(flood);
    const run = await planAgainst(hostile.url).run(['plan', '--timeout', '60']);
    expect(run.err).toBe(
      `error: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 to ${hostile.url}: the answer is larger than 64 MiB (67,108,864 bytes), the limit of one answer (a page of 100 websites is far smaller): refused; is this the websites service?\n`,
    );
    expect(run.code).toBe(1);
    expect(hostile.requests).toBe(1); // not retried
    expect(hostile.written).toBeLessThan(2 * MAX_RESPONSE_BYTES); // the client stopped reading; the server did not run out
  }, 60_000);

  it('is refused before its body is read when its Content-Length is past the limit', async () => {
    hostile = await hostileServer(flood, { 'content-length': String(10 ** 12) });
    const run = await planAgainst(hostile.url).run(['plan', '--timeout', '60']);
    expect(run.err).toContain(': the answer is larger than 64 MiB (67,108,864 bytes), the limit of one answer');
    expect(run.code).toBe(1);
    expect(hostile.requests).toBe(1);
    expect(hostile.written).toBeLessThan(MAX_RESPONSE_BYTES);
  }, 60_000);

  it('ends at the --timeout deadline while the body is still arriving', async () => {
    hostile = await hostileServer(trickle);
    const run = await planAgainst(hostile.url).run(['plan', '--timeout', '0.5']);
    expect(run.err).toBe(
      `error: GET /api/v1/websites?sort_by=id&sort=asc&per_page=100&page=1 to ${hostile.url}: no complete answer within 0.5 s\n`,
    );
    expect(run.code).toBe(1);
  });
});
