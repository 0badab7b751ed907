// Slow and broken clients (issue 9): request and body timeouts, protocol-level errors in the
// service's error shape, and a shutdown that lets in-flight requests finish within a grace period.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openSocket, parseAnswer, readUntilClosed, sendRaw } from '../helpers/raw-http.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function postHead(server: TestServer, body: string, extra = ''): string {
  const length = Buffer.byteLength(body);
  return `POST /api/v1/websites HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${server.key}\r\naccept: application/json\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${length}\r\n${extra}\r\n`;
}

/** With this header, node answers `100 Continue` once it has parsed the request and handed it on. */
const CONTINUE = 'expect: 100-continue\r\n';

/** Resolves when the server has the request in hand (its `100 Continue`). */
function dispatched(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      if (!chunk.toString('latin1').includes('100 Continue')) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
  });
}

/** Answers split from a connection that carried several (pipelined) requests. */
function splitAnswers(raw: string): ReturnType<typeof parseAnswer>[] {
  return raw
    .split(/(?=HTTP\/1\.1 \d{3})/)
    .filter((part) => part !== '' && !part.startsWith('HTTP/1.1 100'))
    .map((part) => {
      const answer = parseAnswer(part);
      const length = Number(answer.headers['content-length'] ?? answer.text.length);
      return parseAnswer(part.slice(0, part.length - answer.text.length) + answer.text.slice(0, length));
    });
}

describe('timeouts', () => {
  it('cuts off a body that trickles in one byte at a time with 408 in the service shape', async () => {
    server = await startTestServer({ requestTimeoutMs: 300 });
    const socket = await openSocket(server.url);
    const answer = readUntilClosed(socket);
    const body = `domain=${'slow'.repeat(20)}.example`;
    socket.write(postHead(server, body));
    let sent = 0;
    // One byte each time the previous one is flushed, paced so the body never completes in time.
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++]!);
    }, 50);
    const received = parseAnswer(await answer);
    clearInterval(trickle);
    expect(sent).toBeLessThan(body.length - 1);
    expect(received.status).toBe(408);
    expect(received.body).toEqual({ message: 'Request Timeout.', status: 408 });
    // Nothing was stored.
    const list = await request(server.url, 'GET', '/api/v1/websites', { key: server.key });
    expect(list.body.data).toEqual([]);
  });

  it('cuts off headers that never end with 408', async () => {
    server = await startTestServer({ requestTimeoutMs: 200 });
    const socket = await openSocket(server.url);
    const answer = readUntilClosed(socket);
    socket.write('GET /api/v1/websites HTTP/1.1\r\nhost: localhost\r\nx-slow: ');
    const received = parseAnswer(await answer);
    expect([received.status, received.body]).toEqual([408, { message: 'Request Timeout.', status: 408 }]);
  });
});

describe('protocol-level errors', () => {
  it.each([
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400, 'Bad Request.'],
    ['a malformed header', 'GET / HTTP/1.1\r\nho st: x\r\n\r\n', 400, 'Bad Request.'],
    [
      'a header section over 16 KiB',
      `GET / HTTP/1.1\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'Request Header Fields Too Large.',
    ],
    [
      'a malformed percent-escape',
      'GET /api/v1/websites/%zz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
      400,
      'Bad Request.',
    ],
  ])('answers %s in the service error shape', async (_, text, status, message) => {
    server = await startTestServer();
    const answer = await sendRaw(server.url, text);
    expect([answer.status, answer.body]).toEqual([status, { message, status }]);
  });
});

describe('shutdown', () => {
  it('lets an in-flight request finish, answers 503 to the next one on the connection, then stops', async () => {
    server = await startTestServer({ shutdownGraceMs: 10_000 });
    const running = server;
    const socket = await openSocket(running.url);
    const answers = readUntilClosed(socket);
    const body = 'domain=in-flight.example';
    socket.write(postHead(running, body, CONTINUE) + body.slice(0, 5));
    await dispatched(socket);
    server = undefined;
    const closed = running.close();
    socket.write(
      `${body.slice(5)}GET /api/v1/websites HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${running.key}\r\naccept: application/json\r\n\r\n`,
    );
    const [created, refused] = splitAnswers(await answers);
    await closed;
    expect(created?.status).toBe(201);
    expect(created?.body.data.domain).toBe('in-flight.example');
    expect([refused?.status, refused?.body]).toEqual([503, { message: 'Shutting down.', status: 503 }]);
  });

  it('closes a request still in flight once the grace period is over', async () => {
    server = await startTestServer({ shutdownGraceMs: 50 });
    const running = server;
    const socket = await openSocket(running.url);
    const answer = readUntilClosed(socket);
    socket.write(`${postHead(running, 'domain=never-done.example', CONTINUE)}domain=`);
    await dispatched(socket);
    server = undefined;
    await running.close();
    expect(await answer).toBe('HTTP/1.1 100 Continue\r\n\r\n');
  });
});
