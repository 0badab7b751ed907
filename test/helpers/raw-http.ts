/**
 * HTTP at the socket level, for what fetch cannot send: an absolute-form
 * request line, a malformed request, a body that trickles in or stalls.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare bodies with literal expectations
  body: any;
}

export function parseAnswer(raw: string): RawAnswer {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const text = rest.join('\r\n\r\n');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, text, body };
}

/** Opens a connection to the server's address. */
export function openSocket(baseUrl: string): Promise<Socket> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
export function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}

/** Sends `text` verbatim on a new connection and parses the one answer (the request should say Connection: close). */
export async function sendRaw(baseUrl: string, text: string): Promise<RawAnswer> {
  const socket = await openSocket(baseUrl);
  const answer = readUntilClosed(socket);
  socket.write(text);
  return parseAnswer(await answer);
}

/** A GET with the given request target, exactly as written on the request line. */
export function rawGet(baseUrl: string, target: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const lines = Object.entries({ host: new URL(baseUrl).host, accept: 'application/json', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return sendRaw(baseUrl, `GET ${target} HTTP/1.1\r\n${lines}connection: close\r\n\r\n`);
}
