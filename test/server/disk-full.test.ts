// SQLite on a full disk (issue 23, item 8): a write that cannot grow the file is 503 with
// Retry-After (never 500), /ready says not ready while writes fail, reads go on, and the server
// recovers by itself once space is free. The full disk is real SQLite behaviour: PRAGMA
// max_page_count makes the file refuse to grow with SQLITE_FULL, the code a full filesystem gives.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { request } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const KEY = 'disk-full-key-0123456789';

describe('a full database file (SQLite)', () => {
  const tempDir = useTempDir('disk-full');
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers 503 with Retry-After, is not ready while writes fail, and recovers when space is freed', async () => {
    const db = join(tempDir(), 'full.db');
    await (await startServer({ port: 0, db, keys: [KEY] })).close();
    const reader = new Database(db, { readonly: true });
    const pages = reader.pragma('page_count', { simple: true }) as number;
    reader.close();
    server = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0, maxDbPages: pages + 4 });
    const url = server.url;
    const create = (n: number) =>
      request(url, 'POST', '/api/v1/websites', {
        key: KEY,
        form: { domain: `full-${n}.example`, exclude_params: `p${n}-`.repeat(800) },
      });

    const created: number[] = [];
    let refused: Awaited<ReturnType<typeof create>> | undefined;
    for (let n = 0; n < 40 && !refused; n += 1) {
      const response = await create(n);
      if (response.status === 201) created.push(response.body.data.id);
      else refused = response;
    }
    expect(created.length).toBeGreaterThan(0);
    expect(refused?.status).toBe(503);
    expect(refused?.body).toEqual({ message: 'Service Unavailable.', status: 503 });
    expect(refused?.headers.get('retry-after')).toBe('30');

    const ready = await request(url, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ message: 'Database full: writes fail.', status: 503 });
    expect((await request(url, 'GET', '/health')).status).toBe(200);
    expect((await request(url, 'GET', '/api/v1/websites', { key: KEY })).body.meta.total).toBe(created.length);

    // Space freed (websites deleted): the next write succeeds and the server is ready again.
    for (const id of created) {
      expect((await request(url, 'DELETE', `/api/v1/websites/${id}`, { key: KEY })).status).toBe(200);
    }
    expect((await request(url, 'GET', '/ready')).status).toBe(200);
    expect((await create(1000)).status).toBe(201);
  });
});
