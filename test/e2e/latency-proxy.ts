/**
 * A loopback HTTP proxy that holds every request for a fixed time before
 * forwarding it: it stretches an apply over a window wide enough for a test to
 * kill the process in the middle of it, as a real service 60 requests a
 * minute away would.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LatencyProxy {
  url: string;
  close(): Promise<void>;
}

export async function startLatencyProxy(target: string, delayMs: number): Promise<LatencyProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      setTimeout(() => {
        const forwarded = httpRequest(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
            agent,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forwarded.on('error', () => req.socket.destroy());
        forwarded.end(Buffer.concat(chunks));
      }, delayMs);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
