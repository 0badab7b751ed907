// Correct under concurrency: the website limit and domain uniqueness hold when
// creates race, within one server and across servers sharing one database (an SQLite file or PostgreSQL).
import { beforeEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { request } from '../helpers/server.js';
import { useTestDatabase } from '../helpers/test-database.js';

const KEY = 'concurrency-key-0123456789';
const TOO_MANY = { message: { domain: ['You created too many websites.'] }, status: 422 };

/** `count` creates with passwords (so each awaits a scrypt hash between check and insert), spread over servers. */
async function createConcurrently(servers: RunningServer[], count: number) {
  return Promise.all(
    Array.from({ length: count }, (_, index) =>
      request(servers[index % servers.length]!.url, 'POST', '/api/v1/websites', {
        key: KEY,
        form: { domain: `race-${index}.example`, privacy: '2', password: 'a-long-password' },
      }),
    ),
  );
}

describe('website limit under concurrent creates', () => {
  const database = useTestDatabase('concurrency');
  let db: string;
  beforeEach(() => {
    db = database().db;
  });

  it('20 concurrent creates on an account limited to 3 create exactly 3', async () => {
    const server = await startServer({ port: 0, db, keys: [KEY], websiteLimit: 3, throttlePerMinute: 0 });
    try {
      const responses = await createConcurrently([server], 20);
      expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
      const refused = responses.filter((response) => response.status !== 201);
      expect(refused.map((response) => response.body)).toEqual(Array(17).fill(TOO_MANY));
      const listed = await request(server.url, 'GET', '/api/v1/websites', { key: KEY });
      expect(listed.body.meta.total).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('holds across two servers sharing one database file', async () => {
    const first = await startServer({ port: 0, db, keys: [KEY], websiteLimit: 3, throttlePerMinute: 0 });
    const second = await startServer({ port: 0, db, keys: [KEY], websiteLimit: 3, throttlePerMinute: 0 });
    try {
      const responses = await createConcurrently([first, second], 20);
      expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
      expect(responses.filter((response) => response.status === 422)).toHaveLength(17);
      const listed = await request(second.url, 'GET', '/api/v1/websites', { key: KEY });
      expect(listed.body.meta.total).toBe(3);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('one domain created 10 times at once over two servers gives one row and 9 × "taken"', async () => {
    const first = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    const second = await startServer({ port: 0, db, keys: [KEY], throttlePerMinute: 0 });
    try {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          request((index % 2 ? first : second).url, 'POST', '/api/v1/websites', {
            key: KEY,
            form: { domain: 'same.example', privacy: '2', password: 'a-long-password' },
          }),
        ),
      );
      expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
      expect(responses.filter((response) => response.status === 422).map((response) => response.body)).toEqual(
        Array(9).fill({ message: { domain: ['The domain has already been taken.'] }, status: 422 }),
      );
    } finally {
      await first.close();
      await second.close();
    }
  });
});
