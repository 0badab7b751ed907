/**
 * Test helpers for the reference server: an in-process server on port 0 with
 * an in-memory database, no throttle and one generated key; extra accounts;
 * and a raw HTTP helper that sends exactly what a test says (contract tests
 * must not go through the client under test).
 */
import { randomUUID } from 'node:crypto';
import {
  createAccountWithKey,
  type RunningServer,
  type ServerOptions,
  startServer,
  type WebsiteValues,
} from '../../src/server/index.js';
import { hashKey } from '../../src/server/store/credentials.js';
import { createTestDatabase } from './postgres-database.js';
import { STORED_DEFAULTS } from './stored-website.js';

export { STORED_DEFAULTS } from './stored-website.js';

export interface TestAccount {
  id: number;
  key: string;
}

export interface TestServer {
  url: string;
  /** The key of the server's first account. */
  key: string;
  accountId: number;
  server: RunningServer;
  /** Another account with its own key (and websites). */
  createAccount(settings?: {
    websiteLimit?: number | null;
    apiAccess?: boolean;
    admin?: boolean;
  }): Promise<TestAccount>;
  /** Changes an account's plan (website limit, API access) or role. */
  setAccount(
    id: number,
    settings: { websiteLimit?: number | null; apiAccess?: boolean; admin?: boolean },
  ): Promise<void>;
  close(): Promise<void>;
}

/** The backend of this test run: the "postgres" vitest project sets SITESYNC_TEST_BACKEND=postgres. */
export const TEST_BACKEND: 'sqlite' | 'postgres' =
  process.env.SITESYNC_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';

/** A server on a fresh database of this run's backend: in-memory SQLite, or a new PostgreSQL database. */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const key = `test-${randomUUID()}`;
  const database =
    TEST_BACKEND === 'postgres' && options.db === undefined ? await createTestDatabase({ migrated: true }) : undefined;
  // SITESYNC_TEST_QUIRKS=phpanalytics-v31 runs client suites (test/api, test/cli) against the quirks mode.
  const quirks = process.env.SITESYNC_TEST_QUIRKS === 'phpanalytics-v31' ? { quirks: 'phpanalytics-v31' as const } : {};
  let server: RunningServer;
  try {
    server = await startServer({
      port: 0,
      db: database?.url ?? ':memory:',
      throttlePerMinute: 0,
      ...quirks,
      ...options,
      keys: [key],
    });
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const first = (await server.store.findKey(hashKey(key)))?.account;
  return {
    url: server.url,
    key,
    accountId: first!.id,
    server,
    async createAccount(settings = {}) {
      const created = await createAccountWithKey(server.store, `test-${randomUUID()}`, settings);
      return { id: created.account.id, key: created.key };
    },
    async setAccount(id, settings) {
      await server.store.updateAccount(id, settings);
    },
    async close() {
      try {
        await server.close();
      } finally {
        await database?.drop();
      }
    },
  };
}

/** Inserts a website through the store (out of band: no HTTP, no throttle); returns its id. */
export async function insertWebsite(
  server: TestServer,
  domain: string,
  options: { accountId?: number; values?: Partial<WebsiteValues> } = {},
): Promise<number> {
  const values = { ...STORED_DEFAULTS, ...options.values };
  const website = await server.server.store.insertWebsite(
    options.accountId ?? server.accountId,
    domain,
    values,
    new Date(),
  );
  return website.id;
}

export interface RawRequest {
  key?: string | null;
  /** Default 'application/json'; null sends no Accept header at all. */
  accept?: string | null;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string> | string;
  /** Sent as application/json (a string is sent verbatim). */
  json?: unknown;
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests compare bodies with literal expectations
  body: any;
}

/** One HTTP request, exactly as described; redirects are not followed. */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: RawRequest = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.accept !== null) headers.accept = options.accept ?? 'application/json';
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = typeof options.form === 'string' ? options.form : new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** A request bound to one server and key: `api('POST', '/api/v1/websites', { form })`. */
export type BoundRequest = (method: string, path: string, options?: RawRequest) => Promise<RawResponse>;

export function client(server: { url: string; key: string }): BoundRequest {
  return (method, path, options = {}) => request(server.url, method, path, { key: server.key, ...options });
}
