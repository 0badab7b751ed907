/**
 * The watch's HTTP endpoints on `--metrics-addr HOST:PORT`: `/metrics`
 * (Prometheus text), `/healthz` (the process answers), `/readyz` (200 once
 * every target has been checked once, 503 before) and `/status` (JSON).
 * node:http, GET and HEAD only; nothing here can change anything.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SitesyncError } from '../model/errors.js';
import type { WatchMetrics } from './metrics.js';
import type { Watcher } from './watcher.js';

export interface StatusServer {
  url: string;
  close(): Promise<void>;
}

/** `HOST:PORT` (`[::1]:9464` for IPv6); port 0 picks a free one. */
export function parseAddress(text: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || port > 65_535) return undefined;
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

export async function startStatusServer(
  address: { host: string; port: number },
  watcher: Pick<Watcher, 'ready' | 'status'>,
  metrics: WatchMetrics,
): Promise<StatusServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return send(405, 'text/plain', 'method not allowed\n');
    }
    switch (path) {
      case '/metrics':
        metrics.text().then(
          (text) => send(200, metrics.contentType, text),
          () => send(500, 'text/plain', 'metrics unavailable\n'),
        );
        return;
      case '/healthz':
        return send(200, 'text/plain', 'ok\n');
      case '/readyz':
        return watcher.ready
          ? send(200, 'text/plain', 'ready\n')
          : send(503, 'text/plain', 'not ready: first check running\n');
      case '/status':
        return send(200, 'application/json', `${JSON.stringify(watcher.status(), null, 2)}\n`);
      default:
        return send(404, 'text/plain', 'not found: /metrics, /healthz, /readyz, /status\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${address.host}:${address.port}`;
      reject(new SitesyncError('usage', `--metrics-addr ${where}: cannot listen (${error.code ?? error.message})`));
    });
    server.listen(address.port, address.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = address.host.includes(':')
    ? `[${address.host}]`
    : address.host === '0.0.0.0'
      ? '127.0.0.1'
      : address.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
