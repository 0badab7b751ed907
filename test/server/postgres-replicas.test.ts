// Two `sitesync serve` processes on one PostgreSQL database, one killed with SIGKILL in the
// middle of writes: every acknowledged write is in the database, the other replica keeps serving.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres-database.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { request } from '../helpers/server.js';

const KEY = 'replica-key-0123456789';

let database: TestDatabase;
let replicas: ServeProcess[] = [];
beforeEach(async () => {
  database = await createTestDatabase({ migrated: true });
});
afterEach(async () => {
  for (const replica of replicas) if (replica.child.exitCode === null) replica.child.kill('SIGKILL');
  await Promise.all(replicas.map((replica) => replica.exited));
  replicas = [];
  await database.drop();
});

async function storedDomains(): Promise<string[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<{ domain: string }>('SELECT domain FROM websites')).rows.map((row) => row.domain);
  } finally {
    await client.end();
  }
}

describe('kill -9 of one replica during writes', () => {
  it('keeps every acknowledged write; the other replica keeps serving', async () => {
    const env = { SITESYNC_SERVE_KEYS: KEY };
    const args = ['--db', database.url, '--throttle', '0', '--auth-failures', '0', '--log-level', 'error'];
    replicas = await Promise.all([startServeProcess(args, env), startServeProcess(args, env)]);
    const [doomed, survivor] = replicas as [ServeProcess, ServeProcess];

    const acknowledged: string[] = [];
    const refusedByDoomed: string[] = [];
    const survivorStatuses: number[] = [];
    let doomedAcks = 0;
    // 4 writers, 20 creates each, alternating replicas; the 8th create acknowledged by the doomed
    // replica triggers its SIGKILL while the other writers' requests are in flight.
    const writer = async (writerIndex: number) => {
      for (let index = 0; index < 20; index += 1) {
        const domain = `w${writerIndex}-${index}.example`;
        const target = (writerIndex + index) % 2 === 0 ? doomed : survivor;
        try {
          const response = await request(target.url, 'POST', '/api/v1/websites', { key: KEY, form: { domain } });
          if (target === survivor) survivorStatuses.push(response.status);
          if (response.status === 201) {
            acknowledged.push(domain);
            if (target === doomed && ++doomedAcks === 8) doomed.child.kill('SIGKILL');
          }
        } catch {
          expect(target).toBe(doomed); // only the killed replica may fail to answer
          refusedByDoomed.push(domain);
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));

    expect(await doomed.exited).toBe('SIGKILL');
    expect(refusedByDoomed.length).toBeGreaterThan(0); // the kill did land during the writes
    expect(survivorStatuses).toEqual(Array(40).fill(201));
    const stored = await storedDomains();
    for (const domain of acknowledged) expect(stored).toContain(domain);
    // Nothing but what was sent; a write cut off after its commit may be stored unacknowledged.
    for (const domain of stored) expect(domain).toMatch(/^w[0-3]-\d+\.example$/);
    const listed = await request(survivor.url, 'GET', '/api/v1/websites?per_page=100', { key: KEY });
    expect(listed.status).toBe(200);
    expect(listed.body.meta.total).toBe(stored.length);
    const ready = await request(survivor.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
  }, 60_000);
});
