/**
 * The watch's HTTP endpoints on `--metrics-addr HOST:PORT`: `/metrics`
 * (Prometheus text), `/healthz` (the process answers), `/readyz` (200 once
 * every target has been checked once, 503 before), `/status` (JSON) and the
 * status page (page/routes.ts: `/`, `/targets/NAME`). node:http; nothing here
 * can change anything (the page's only POSTs log a browser in and out). With
 * a status token, `/status` and the page need it (page/access.ts).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SitesyncError } from '../model/errors.js';
import { jsonDocument } from '../model/text.js';
import type { WatchMetrics } from './metrics.js';
import { Access, type AccessOptions } from './page/access.js';
import { isPagePath, PageRoutes } from './page/routes.js';
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
  access: AccessOptions = { secureCookie: false, now: Date.now },
): Promise<StatusServer> {
  const gate = new Access(access);
  const pages = new PageRoutes(watcher, gate, access.now);
  const server: Server = createServer((request, response) => {
    const [path = '/', search = ''] = (request.url ?? '/').split(/\?(.*)/s);
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (isPagePath(path)) {
      const reply = pages.reply({
        method: request.method ?? 'GET',
        path,
        query: new URLSearchParams(search),
        headers: request.headers,
        body: (limit) => bodyOf(request, limit),
      });
      reply.then(
        ({ status, headers, body }) => send(status, headers['content-type'] ?? 'text/plain', body, headers),
        () => send(500, 'text/plain', 'page unavailable\n'),
      );
      return;
    }
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
        if (!gate.allows(request.headers))
          return send(401, 'text/plain', 'the status token is needed: Authorization: Bearer TOKEN\n', {
            'www-authenticate': 'Bearer realm="sitesync watch"',
          });
        return send(200, 'application/json', jsonDocument(watcher.status()));
      default:
        return send(404, 'text/plain', 'not found: /, /targets/NAME, /metrics, /healthz, /readyz, /status\n');
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

/** A request's body as text, refused past `limit` bytes (the rest is read and dropped). */
function bodyOf(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new Error('too large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
