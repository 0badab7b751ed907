/**
 * A small fault-injecting HTTP proxy for tests (toxiproxy is not available):
 * it sits between a client and the reference server and, per request, passes
 * it through or injects a fault: a reset before or after the upstream commit,
 * a stall, a 502/503 HTML page, a 500, a 429, a truncated body, a redirect, a
 * 200 whose body is not a website record. Which request gets
 * which fault is decided by a plan: a script (the first requests matching a
 * method get these faults) or a seeded random mix, so every run is the same.
 * Loopback only; every request is logged with the fault it got.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  /** Passed through untouched. */
  | 'pass'
  /** Connection destroyed before anything reaches the server. */
  | 'reset'
  /** Never answered, never forwarded: the client's timeout must fire. */
  | 'stall'
  /** A proxy's HTML error page, not forwarded. */
  | 'html-502'
  | 'html-503'
  /** The service's own `{"message": "Server Error"}` 500, not forwarded. */
  | 'server-500'
  /** 429 with Retry-After and X-RateLimit headers, not forwarded. */
  | 'throttle'
  /** Forwarded and committed by the server, then the connection is destroyed: the answer is lost. */
  | 'commit-then-reset'
  /** Forwarded and committed, then never answered. */
  | 'commit-then-stall'
  /** Forwarded and committed, then a 502 HTML page instead of the answer. */
  | 'commit-then-502'
  /** Forwarded; the status and half the body arrive, then the connection is destroyed. */
  | 'truncate'
  /** A redirect to the same path over https (a front end moved to TLS), not forwarded. */
  | 'redirect-301'
  | 'redirect-308'
  /** 200 with a JSON body that is not a website record (`{"message":"OK"}`), not forwarded. */
  | 'unreadable-200'
  /** Forwarded and committed, then answered 200 with that body instead of the record. */
  | 'commit-then-unreadable-200';

export interface ProxiedRequest {
  method: string;
  path: string;
  /** 0-based arrival order. */
  index: number;
}

export type FaultPlan = (request: ProxiedRequest) => Fault;

export interface FaultProxyOptions {
  /** The upstream base URL, e.g. a test server's url. */
  target: string;
  plan?: FaultPlan;
  /** Retry-After of a `throttle` fault, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** Rewrites a passed-through JSON answer (a server that answers differently); undefined keeps it. */
  rewrite?: (request: ProxiedRequest, body: unknown) => unknown;
  /**
   * Called as a passed-through request has been answered by the server (committed): the answer
   * is held until the returned promise settles (undefined: not held). Tells a test, by event,
   * that a request is on the wire, and lets it act before the answer arrives.
   */
  hold?: (request: ProxiedRequest) => Promise<void> | undefined;
}

export interface FaultProxy {
  url: string;
  /** Every request seen, with the fault it got. */
  readonly log: (ProxiedRequest & { fault: Fault })[];
  setPlan(plan: FaultPlan): void;
  close(): Promise<void>;
}

/** The first requests matching `method` (any when omitted) get `faults` in order; the rest pass. */
export function scripted(faults: Fault[], method?: string): FaultPlan {
  const queue = [...faults];
  return (request) => (method === undefined || request.method === method ? (queue.shift() ?? 'pass') : 'pass');
}

/** mulberry32: a tiny seeded PRNG, so a "random" fault mix is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each request gets fault F with probability rates[F] (seeded), else passes. */
export function seeded(seed: number, rates: Partial<Record<Fault, number>>, method?: string): FaultPlan {
  const random = seededRandom(seed);
  return (request) => {
    if (method !== undefined && request.method !== method) return 'pass';
    let roll = random();
    for (const [fault, rate] of Object.entries(rates) as [Fault, number][]) {
      if (roll < rate) return fault;
      roll -= rate;
    }
    return 'pass';
  };
}

const htmlPage = (status: number, title: string) =>
  `<!DOCTYPE html><html><head><title>${status} ${title}</title></head><body><h1>${status} ${title}</h1><hr><center>nginx</center></body></html>`;

interface Upstream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function readBody(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  const log: FaultProxy['log'] = [];
  let plan: FaultPlan = options.plan ?? (() => 'pass');
  let index = 0;

  const forward = (req: IncomingMessage, body: Buffer) =>
    new Promise<Upstream>((resolve, reject) => {
      const headers = { ...req.headers, host: target.host };
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
        (response) => {
          readBody(response).then(
            (data) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: data }),
            reject,
          );
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });

  const respondHtml = (res: ServerResponse, status: number, title: string) => {
    res.writeHead(status, { 'content-type': 'text/html' }).end(htmlPage(status, title));
  };

  const rewriteBody = (request: ProxiedRequest, upstream: Upstream): string | undefined => {
    const isJson = String(upstream.headers['content-type']).startsWith('application/json');
    if (options.rewrite === undefined || !isJson) return undefined;
    const body = options.rewrite(request, JSON.parse(upstream.body.toString('utf8')));
    return body === undefined ? undefined : JSON.stringify(body);
  };

  const respondUnreadable = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"OK"}');
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const request = { method: req.method ?? 'GET', path: req.url ?? '/', index: index++ };
    const fault = plan(request);
    log.push({ ...request, fault });
    switch (fault) {
      case 'reset':
        return void req.socket.destroy();
      case 'stall':
        return;
      case 'html-502':
        return respondHtml(res, 502, 'Bad Gateway');
      case 'html-503':
        return respondHtml(res, 503, 'Service Temporarily Unavailable');
      case 'server-500':
        res.writeHead(500, { 'content-type': 'application/json' });
        return void res.end('{"message":"Server Error"}');
      case 'redirect-301':
      case 'redirect-308':
        res.writeHead(fault === 'redirect-301' ? 301 : 308, { location: `https://${req.headers.host}${req.url}` });
        return void res.end();
      case 'unreadable-200':
        return respondUnreadable(res);
      case 'throttle': {
        const retryAfter = String(options.retryAfterSeconds ?? 1);
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': retryAfter,
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '0',
        });
        return void res.end('{"message":"Too Many Attempts."}');
      }
    }
    const upstream = await forward(req, body);
    if (fault === 'pass') await options.hold?.(request);
    switch (fault) {
      case 'commit-then-reset':
        return void req.socket.destroy();
      case 'commit-then-stall':
        return;
      case 'commit-then-502':
        return respondHtml(res, 502, 'Bad Gateway');
      case 'commit-then-unreadable-200':
        return respondUnreadable(res);
      case 'truncate': {
        const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = upstream.headers;
        res.writeHead(upstream.status, { ...headers, 'content-length': String(upstream.body.length) });
        res.write(upstream.body.subarray(0, Math.floor(upstream.body.length / 2)));
        return void setImmediate(() => req.socket.destroy());
      }
      case 'pass': {
        const { 'transfer-encoding': _encoding, connection: _connection, ...headers } = upstream.headers;
        const rewritten = rewriteBody(request, upstream);
        if (rewritten === undefined) return void res.writeHead(upstream.status, headers).end(upstream.body);
        const { 'content-length': _length, ...rest } = headers;
        return void res.writeHead(upstream.status, rest).end(rewritten);
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    log,
    setPlan(next) {
      plan = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A website record's answer (bare, or under `data`) with `fields` in place of its own: a service that did not keep a write. */
export function recordWith(body: unknown, fields: Record<string, unknown>): unknown {
  const record = body as { data?: Record<string, unknown> } & Record<string, unknown>;
  return record.data !== undefined ? { ...record, data: { ...record.data, ...fields } } : { ...record, ...fields };
}
