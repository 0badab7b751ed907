/**
 * The metrics listener (`--metrics-addr HOST:PORT`): its own HTTP server, never
 * the API port, so only whoever can reach that address (a scraper on the
 * internal network) reads the series. `GET /metrics`, and the JSON probes the
 * server hands it (quirks mode: `/health`, `/ready`, the OpenAPI document);
 * anything else 404.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';

/** A JSON answer: its status and body. */
interface ProbeAnswer {
  status: number;
  body: unknown;
}

/** JSON answers by path, beside /metrics. */
export type Probes = Record<string, () => Promise<ProbeAnswer>>;

/** `HOST:PORT` or `[IPv6]:PORT` → its parts; throws a readable message otherwise. */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new Error(`expected HOST:PORT (e.g. 127.0.0.1:9464 or [::1]:9464), not "${text}"`);
  return { host: (match[1] ?? match[2])!, port };
}

/** The metrics listener could not listen (its port in use, say): not the API's address, so named apart. */
export class MetricsListenError extends Error {
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`cannot serve metrics on ${address}: ${reason}`);
    this.name = 'MetricsListenError';
  }
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

function answerProbe(probe: () => Promise<ProbeAnswer>, head: boolean, response: ServerResponse): void {
  probe().then(
    ({ status, body }) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(head ? undefined : JSON.stringify(body));
    },
    () => response.writeHead(500).end(),
  );
}

export async function listenForMetrics(
  registry: Registry,
  address: string,
  probes: Probes = {},
): Promise<MetricsListener> {
  const { host, port } = parseListenAddress(address);
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0]!;
    const read = request.method === 'GET' || request.method === 'HEAD';
    const probe = Object.hasOwn(probes, path) ? probes[path] : undefined;
    if (read && probe) return answerProbe(probe, request.method === 'HEAD', response);
    if (path !== '/metrics' || !read) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found. Try /metrics.\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { 'content-type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) =>
      reject(new MetricsListenError(address, error.code ?? error.message));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = server.address();
  const boundPort = typeof bound === 'object' && bound ? bound.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
