/**
 * Shared set-up for the client tests: a reference server on port 0 in either
 * mode, a client pointed at it (no rate limit, quick retries), desired-site
 * builders, seeding big listings straight through the server's store, and a
 * stand-in server for answers the reference server never gives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClientOptions, createClient, type WebsitesApi } from '../../src/api/index.js';
import { Secret } from '../../src/model/secret.js';
import type { DesiredWebsite, WebsiteSettings } from '../../src/model/website.js';
import type { ServerOptions } from '../../src/server/index.js';
import { insertWebsite, startTestServer, type TestServer } from '../helpers/server.js';
import { desired as buildDesired } from '../plan/builders.js';

export const MODES = ['normal', 'phpanalytics-v31'] as const;
export type Mode = (typeof MODES)[number];

export interface Setup {
  server: TestServer;
  client: WebsitesApi;
  /** Another client on the same server (options merged with the defaults below). */
  connect(options?: Partial<ClientOptions>): WebsitesApi;
  close(): Promise<void>;
}

/** Quick retries, no client-side limit: tests wait only where they mean to. */
export const TEST_CLIENT: Partial<ClientOptions> = {
  rateLimitPerMinute: 0,
  retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 20 },
  timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000, operationMs: 10_000 },
};

export async function setup(
  mode: Mode,
  serverOptions: ServerOptions = {},
  clientOptions: Partial<ClientOptions> = {},
): Promise<Setup> {
  const server = await startTestServer({ ...(mode !== 'normal' && { quirks: mode }), ...serverOptions });
  const clients: WebsitesApi[] = [];
  const connect = (options: Partial<ClientOptions> = {}) => {
    const client = createClient({
      url: server.url,
      apiKey: new Secret(server.key),
      ...TEST_CLIENT,
      ...clientOptions,
      ...options,
    });
    clients.push(client);
    return client;
  };
  const client = connect();
  return {
    server,
    client,
    connect,
    close: async () => {
      await Promise.all(clients.map((each) => each.close()));
      await server.close();
    },
  };
}

/** The planner tests' builder, with the password as a plain third argument. */
export function desired(domain: string, settings: Partial<WebsiteSettings> = {}, password?: string): DesiredWebsite {
  return buildDesired(domain, settings, password === undefined ? {} : { password });
}

/** `count` sites `site-1.example.com`… inserted through the store (fast, no HTTP). */
export async function seed(server: TestServer, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await insertWebsite(server, `site-${i}.example.com`);
}

/** A stand-in server for answers the reference server never gives (a login page, broken JSON). */
export async function fakeServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
