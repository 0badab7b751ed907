/**
 * A listening socket that records every connection made to it, and what was
 * sent: where a test proves that sitesync sent nothing (no connection at all)
 * or shows what a key would have revealed. It answers each request 401, so a
 * client that does connect stops at once instead of retrying.
 */
import { createServer, type Socket } from 'node:net';

export interface ConnectionRecorder {
  /** http://127.0.0.1:PORT */
  url: string;
  /** One entry per connection: everything received on it. */
  connections: string[];
  close(): Promise<void>;
}

const REFUSAL = '{"message":"Unauthenticated."}';
const ANSWER = `HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${REFUSAL.length}\r\nConnection: close\r\n\r\n${REFUSAL}`;

export async function startConnectionRecorder(): Promise<ConnectionRecorder> {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const index = connections.push('') - 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      connections[index] += chunk.toString('latin1');
      if (connections[index]?.includes('\r\n\r\n')) socket.end(ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the recorder has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
