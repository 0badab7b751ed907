/**
 * A loopback HTTP proxy that holds every request for a fixed time before
 * forwarding it: it stretches an apply over a window wide enough for a test to
 * kill the process in the middle of it, as a real service 60 requests a
 * minute away would. `gate` sees each request as it arrives (before the hold)
 * and may keep it until an event (the client was killed), then forward or
 * drop it; `idle()` settles once every forwarded request has been answered.
 */
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ArrivingRequest {
  method: string;
  url: string;
}

export type Gate = (request: ArrivingRequest) => 'forward' | 'drop' | Promise<'forward' | 'drop'>;

export interface LatencyProxy {
  url: string;
  /** Settles once no request is held or being forwarded. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startLatencyProxy(target: string, delayMs: number, gate?: Gate): Promise<LatencyProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let pending = 0;
  let onIdle: (() => void)[] = [];
  const server = createServer((req, res) => {
    pending += 1;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      pending -= 1;
      if (pending === 0) for (const resolve of onIdle.splice(0)) resolve();
    };
    let received = false;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('close', () => received || settle()); // the client died before its request was complete
    req.on('end', async () => {
      received = true;
      const verdict = gate ? await gate({ method: req.method ?? 'GET', url: req.url ?? '/' }) : 'forward';
      if (verdict === 'drop') {
        req.socket.destroy();
        settle();
        return;
      }
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
            // Read the whole answer whatever became of the client: then the server has surely committed.
            const body: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => body.push(chunk));
            answer.on('error', settle);
            answer.on('end', () => {
              settle();
              if (!res.destroyed) res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
            });
          },
        );
        forwarded.on('error', () => {
          req.socket.destroy();
          settle();
        });
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
    idle: () => (pending === 0 ? Promise.resolve() : new Promise((resolve) => onIdle.push(resolve))),
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      onIdle = [];
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
