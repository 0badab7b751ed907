// `serve --socket PATH` (issue 33, item 11): the server on a Unix socket, mode 0600, for a proxy on
// the same machine (scripts/replicas.sh). Only who can open the file reaches the server, so with a
// bare --trust-proxy its X-Forwarded-For is believed; no TCP port is open at all.
import { existsSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { useTempDir } from '../helpers/temp.js';

const KEY = 'unix-socket-key-0123456789';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare bodies with literal expectations
  body: any;
}

/** One request over the socket. */
function overSocket(socketPath: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ socketPath, path, headers: { accept: 'application/json', ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('a server on a Unix socket', () => {
  const tempDir = useTempDir('unix-socket');
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('listens on the file (0600, removed on close), links to --public-url, and believes its X-Forwarded-For with a bare --trust-proxy', async () => {
    const socket = join(tempDir(), 'api.sock');
    const lines: string[] = [];
    server = await startServer({
      db: ':memory:',
      socket,
      publicUrl: 'https://sites.example.com',
      keys: [KEY],
      trustProxy: true,
      failedAuthPerMinute: 2,
      log: (line) => lines.push(line),
    });
    expect(server.url).toBe(`unix:${socket}`);
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);

    const listed = await overSocket(socket, '/api/v1/websites', { authorization: `Bearer ${KEY}` });
    expect(listed.status).toBe(200);
    expect(listed.body.links.first).toMatch(/^https:\/\/sites\.example\.com\/api\/v1\/websites\?/);

    const wrong = (ip?: string) => ({
      authorization: 'Bearer wrong-key-0123456789',
      ...(ip && { 'x-forwarded-for': ip }),
    });
    const statuses: number[] = [];
    for (const ip of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2', undefined, undefined, undefined]) {
      statuses.push((await overSocket(socket, '/api/v1/websites', wrong(ip))).status);
    }
    // Per forwarded client; a request without the header is the socket's own peer, "unix".
    expect(statuses).toEqual([401, 401, 429, 401, 401, 401, 429]);
    const logged = lines.map((line) => JSON.parse(line).ip);
    expect(logged.slice(1)).toEqual([
      '203.0.113.1',
      '203.0.113.1',
      '203.0.113.1',
      '203.0.113.2',
      'unix',
      'unix',
      'unix',
    ]);

    await server.close();
    server = undefined;
    expect(existsSync(socket)).toBe(false);
  });

  it('refuses named proxies (a socket peer has no address) and a missing --public-url, in one line each', async () => {
    const socket = join(tempDir(), 'api.sock');
    await expect(
      startServer({ db: ':memory:', socket, publicUrl: 'https://a.example', trustProxy: ['127.0.0.1/32'] }),
    ).rejects.toThrow(
      '--trust-proxy: the peer of a Unix socket has no address to name; give --trust-proxy without addresses ' +
        '(whoever can open the socket file is believed)',
    );
    await expect(startServer({ db: ':memory:', socket })).rejects.toThrow(
      '--socket needs --public-url: page links cannot point at a Unix socket',
    );
    expect(existsSync(socket)).toBe(false);
  });

  it('`serve --socket` says where it listens; --port beside it is refused', async () => {
    const socket = join(tempDir(), 'cli.sock');
    const controller = new AbortController();
    const io = { ...captureIo(), signal: controller.signal };
    const exit = main(['serve', '--db', ':memory:', '--socket', socket, '--public-url', 'http://127.0.0.1:8080'], io);
    let ended = false;
    void exit.finally(() => (ended = true));
    while (!ended && !io.err().includes('listening on')) await new Promise((done) => setTimeout(done, 10));
    expect(io.err()).toContain(`sitesync serve: listening on unix:${socket}, database :memory:`);
    expect((await overSocket(socket, '/health')).status).toBe(200);
    controller.abort();
    expect(await exit).toBe(0);
    const both = captureIo();
    expect(await main(['serve', '--db', ':memory:', '--socket', socket, '--port', '9'], both)).toBe(1);
    expect(both.err()).toContain("option '--socket <path>' cannot be used with option '--port <port>'");
  });
});
