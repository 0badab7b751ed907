// Prometheus metrics on their own listener (--metrics-addr): requests by route
// template, latency histograms, rejections, 503s by cause, store gauges and the
// process defaults; never on the API port, never a raw path or key in a label.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { parseListenAddress } from '../../src/server/metrics/listener.js';
import { createTestDatabase } from '../helpers/postgres-database.js';
import { request, startTestServer, TEST_BACKEND, type TestServer } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of one sample, e.g. `sitesync_websites` or `name{a="b"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics listener', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('counts requests by route template, method and status while the API is used', async () => {
    server = await startTestServer({ metricsAddr: '127.0.0.1:0', throttlePerMinute: 3, failedAuthPerMinute: 1 });
    const metricsUrl = server.server.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const { url, key } = server;
    expect((await request(url, 'POST', '/api/v1/websites', { key, form: { domain: 'metrics.example' } })).status).toBe(
      201,
    );
    expect((await request(url, 'GET', '/api/v1/websites/987654', { key })).status).toBe(404);
    expect((await request(url, 'GET', '/api/v1/websites', { key })).status).toBe(200);
    expect((await request(url, 'GET', '/api/v1/websites', { key })).status).toBe(429);
    const stranger = 'wrong-key-that-must-not-show-0123';
    expect((await request(url, 'GET', '/api/v1/secret-path-xyz', { key: stranger })).status).toBe(401);
    expect((await request(url, 'GET', '/api/v1/websites', { key: stranger })).status).toBe(429);
    // The API port does not serve the metrics.
    expect((await request(url, 'GET', '/metrics')).status).toBe(404);

    const text = await scrape(metricsUrl);
    const count = (route: string, method: string, status: number) =>
      sample(text, `sitesync_http_requests_total{route="${route}",method="${method}",status="${status}"}`);
    expect(count('/api/v1/websites', 'POST', 201)).toBe(1);
    expect(count('/api/v1/websites/:id', 'GET', 404)).toBe(1);
    expect(count('/api/v1/websites', 'GET', 200)).toBe(1);
    expect(count('/api/v1/websites', 'GET', 429)).toBe(2);
    expect(count('unmatched', 'GET', 401)).toBe(1);
    expect(count('unmatched', 'GET', 404)).toBe(1);
    expect(sample(text, 'sitesync_http_request_duration_seconds_count{route="/api/v1/websites",method="GET"}')).toBe(3);
    expect(sample(text, 'sitesync_rejections_total{reason="throttle"}')).toBe(1);
    expect(sample(text, 'sitesync_rejections_total{reason="auth_failures"}')).toBe(1);
    expect(sample(text, 'sitesync_rejections_total{reason="unauthenticated"}')).toBe(1);
    expect(sample(text, 'sitesync_unavailable_total{cause="busy"}')).toBe(0);
    expect(sample(text, 'sitesync_accounts')).toBe(1);
    expect(sample(text, 'sitesync_websites')).toBe(1);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    if (TEST_BACKEND === 'postgres') {
      expect(sample(text, 'sitesync_pg_pool_in_use')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'sitesync_pg_pool_waiting')).toBe(0);
    } else {
      expect(sample(text, 'sitesync_sqlite_busy_retries_total')).toBe(0);
    }
    // Bounded labels: no raw path, no key, no id.
    expect(text).not.toContain('secret-path-xyz');
    expect(text).not.toContain('987654');
    expect(text).not.toContain(stranger);
    expect(text).not.toContain(key);
    // Anything but /metrics is not found on the metrics listener.
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });

  it("counts a client's malformed body as its 400, not as a store error", async () => {
    server = await startTestServer({ metricsAddr: '127.0.0.1:0' });
    const answer = await request(server.url, 'POST', '/api/v1/websites', { key: server.key, json: '{"domain":' });
    expect(answer.status).toBe(400);
    const text = await scrape(server.server.metricsUrl!);
    expect(sample(text, 'sitesync_http_requests_total{route="/api/v1/websites",method="POST",status="400"}')).toBe(1);
    expect(text).not.toContain('sitesync_store_errors_total{');
  });

  it('is off by default', async () => {
    server = await startTestServer();
    expect(server.server.metricsUrl).toBeUndefined();
  });

  it('reads HOST:PORT and [IPv6]:PORT, and refuses anything else with a readable message', () => {
    expect(parseListenAddress('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListenAddress('metrics.internal:9464')).toEqual({ host: 'metrics.internal', port: 9464 });
    for (const bad of ['9464', '127.0.0.1', '::1:9464', '127.0.0.1:70000', 'host:port']) {
      expect(() => parseListenAddress(bad)).toThrow(
        `expected HOST:PORT (e.g. 127.0.0.1:9464 or [::1]:9464), not "${bad}"`,
      );
    }
  });
});

describe.skipIf(TEST_BACKEND === 'postgres')('metrics of a locked SQLite file', () => {
  const tempDir = useTempDir('metrics');

  it('counts the 503 as busy, and the busy retries', async () => {
    const db = join(tempDir(), 'locked.db');
    const key = 'metrics-lock-key-0123456789';
    const server = await startServer({
      port: 0,
      db,
      keys: [key],
      throttlePerMinute: 0,
      lockWaitMs: 20,
      metricsAddr: '127.0.0.1:0',
    });
    const other = new Database(db);
    try {
      other.exec('BEGIN IMMEDIATE');
      const answer = await request(server.url, 'POST', '/api/v1/websites', { key, form: { domain: 'a.example' } });
      expect(answer.status).toBe(503);
      other.exec('ROLLBACK');
      const text = await scrape(server.metricsUrl!);
      expect(sample(text, 'sitesync_unavailable_total{cause="busy"}')).toBe(1);
      expect(sample(text, 'sitesync_store_errors_total{cause="busy"}')).toBe(1);
      expect(sample(text, 'sitesync_sqlite_busy_retries_total')).toBeGreaterThan(0);
    } finally {
      other.close();
      await server.close();
    }
  });
});

// Issue 33, item 10: the SQLite store turns SQLITE_FULL into StoreFullError before the metrics
// read its cause, so every write refused for want of space was counted as cause="other" and the
// disk-full alert never fired. SQLite: a real SQLITE_FULL (the file's page cap, as
// disk-full.test.ts); PostgreSQL: its own disk_full error (SQLSTATE 53100), raised by a trigger.
describe('metrics of a full database', () => {
  const tempDir = useTempDir('metrics-full');
  const key = 'metrics-full-key-0123456789';
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  async function fullServer() {
    if (TEST_BACKEND === 'postgres') {
      const database = await createTestDatabase({ migrated: true });
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(`CREATE FUNCTION no_space() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
      await admin.query('CREATE TRIGGER no_space BEFORE INSERT ON websites FOR EACH ROW EXECUTE FUNCTION no_space()');
      await admin.end();
      const server = await startServer({
        port: 0,
        db: database.url,
        keys: [key],
        throttlePerMinute: 0,
        metricsAddr: '127.0.0.1:0',
      });
      cleanup = async () => {
        await server.close();
        await database.drop();
      };
      return server;
    }
    const db = join(tempDir(), 'full.db');
    await (await startServer({ port: 0, db, keys: [key] })).close();
    const reader = new Database(db, { readonly: true });
    const pages = reader.pragma('page_count', { simple: true }) as number;
    reader.close();
    const server = await startServer({
      port: 0,
      db,
      keys: [key],
      throttlePerMinute: 0,
      maxDbPages: pages + 2,
      metricsAddr: '127.0.0.1:0',
    });
    cleanup = () => server.close();
    return server;
  }

  it('counts each write refused for want of space as cause="disk_full", never "other"', async () => {
    const server = await fullServer();
    let refused = 0;
    for (let n = 0; n < 40 && refused < 5; n += 1) {
      const answer = await request(server.url, 'POST', '/api/v1/websites', {
        key,
        form: { domain: `full-${n}.example`, exclude_params: `p${n}-`.repeat(800) },
      });
      expect([201, 503]).toContain(answer.status);
      if (answer.status === 503) refused += 1;
    }
    expect(refused).toBe(5);
    const text = await scrape(server.metricsUrl!);
    expect(sample(text, 'sitesync_unavailable_total{cause="disk_full"}')).toBe(5);
    expect(sample(text, 'sitesync_store_errors_total{cause="disk_full"}')).toBe(5);
    expect(sample(text, 'sitesync_unavailable_total{cause="other"}')).toBe(0);
    expect(sample(text, 'sitesync_store_errors_total{cause="other"}')).toBeUndefined();
  });
});
