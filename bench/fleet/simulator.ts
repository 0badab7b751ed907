/**
 * A fleet of installations of the service in one process, for watch's tests
 * and benchmarks: N installations, each its own origin on a loopback address
 * of its own (127.1.x.y: the whole 127.0.0.0/8 is local on Linux), its own
 * account, key and websites, a latency added to every request, and the
 * service's 60-a-minute window per client (each installation has one client
 * here: its key). It is the reference server itself (src/server's app and
 * SQLite store, seeded in one statement per installation), not a copy of the
 * API: one app answers every installation's listener.
 *
 * It also keeps what a fleet run is judged by: each installation's full
 * listings (a check starts with page 1), every write per site, 429s, and
 * drift injected out of band (through the store, as someone in the service's
 * UI would), so a run can fail on any site written twice for one change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApp } from '../../src/server/http/app.js';
import { createAccountWithKey } from '../../src/server/index.js';
import { openSqliteStore } from '../../src/server/store/sqlite/store.js';
import { createThrottle } from '../../src/server/store/throttle.js';

export interface FleetOptions {
  installations: number;
  /** Websites in each installation's account. */
  websites: number;
  /** Added to every request before it is answered. */
  latencyMs: number;
  /** The service's window per client (default 60 a minute; 0: none). */
  throttlePerMinute?: number;
  /** The throttle's time (default Date.now). */
  clock?: () => number;
}

export interface Installation {
  index: number;
  url: string;
  key: string;
  accountId: number;
}

/** A write to one site, as the simulator saw it answered. */
export interface Write {
  installation: number;
  site: string;
  method: string;
  status: number;
  at: number;
}

export interface Fleet {
  installations: Installation[];
  /** `domain(i, n)`: the n-th website of installation i. */
  domain(installation: number, site: number): string;
  /** Times (on the throttle's clock) each installation's listing started (page 1 asked), by installation. */
  listings: number[][];
  writes: Write[];
  /** Answers with status 429, in all. */
  throttled: number;
  /** Makes `sites` of an installation public (privacy 0), out of band; returns their domains. */
  drift(installation: number, sites: readonly number[]): Promise<string[]>;
  /** Makes them private again (as seeded), out of band: the drift is gone without a heal. */
  restore(installation: number, sites: readonly number[]): Promise<void>;
  /**
   * Sites written more than once since their last drift: each drift is one
   * change, healed by one write (a create counts on its domain).
   */
  doubleWrites(): string[];
  close(): Promise<void>;
}

/** 127.1.0.1, 127.1.0.2, …: one address per installation, never 127.0.0.1 (where everything else listens). */
export const addressOf = (index: number) => `127.1.${(index + 1) >> 8}.${(index + 1) & 255}`;

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const clock = options.clock ?? Date.now;
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-fleet-'));
  const db = join(dir, 'fleet.db');
  const domain = (installation: number, site: number) => `s${site}.i${installation}.fleet.example`;

  const seeding = openSqliteStore(db);
  const accounts: { id: number; key: string }[] = [];
  for (let index = 0; index < options.installations; index++) {
    const { account, key } = await createAccountWithKey(seeding, `installation-${index}`);
    accounts.push({ id: account.id, key });
  }
  await seeding.close();
  const firstIds = seedWebsites(db, accounts, options.websites, domain);

  const store = openSqliteStore(db);
  const perMinute = options.throttlePerMinute ?? 60;
  const app = await createApp({
    store,
    mode: 'normal',
    baseUrl: () => '',
    ...(perMinute > 0 && { throttle: createThrottle(perMinute, 60_000, clock) }),
  });
  const accountIndex = new Map(accounts.map((account, index) => [account.id, index]));
  const listings: number[][] = accounts.map(() => []);
  const writes: Write[] = [];
  const driftedAt = new Map<string, number>();
  let throttled = 0;
  app.addHook('onRequest', async (request) => {
    if (options.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const index = accountIndex.get(request.account?.id ?? -1);
    const [path, query = ''] = request.url.split('?');
    if (index !== undefined && request.method === 'GET' && path === '/api/v1/websites') {
      const page = new URLSearchParams(query).get('page');
      if (page === null || page === '1') listings[index]?.push(clock());
    }
  });
  const idsToDomain = new Map<string, string>();
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 429) throttled++;
    const index = accountIndex.get(request.account?.id ?? -1);
    if (index === undefined || request.method === 'GET' || request.method === 'HEAD') return;
    const id = /^\/api\/v1\/websites\/(\d+)/.exec(request.url)?.[1];
    const body = request.body as { domain?: unknown } | undefined;
    const site = id !== undefined ? (idsToDomain.get(`${index}:${id}`) ?? `#${id}`) : String(body?.domain ?? '?');
    writes.push({ installation: index, site, method: request.method, status: reply.statusCode, at: clock() });
  });
  await app.ready();

  /** Sets a seeded site's privacy through the store; returns its id. */
  const setPrivacy = async (installation: number, site: number, privacy: number): Promise<number> => {
    const id = firstIds[installation]! + site; // seeded in order, one statement per installation
    if ((await store.updateWebsite(accounts[installation]!.id, id, { privacy }, new Date())) === undefined)
      throw new Error(`no site ${domain(installation, site)}`);
    return id;
  };

  const listeners: Server[] = [];
  const installations: Installation[] = [];
  for (const [index, account] of accounts.entries()) {
    const listener = createServer((socket) => app.server.emit('connection', socket));
    const host = addressOf(index);
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(0, host, resolve);
    });
    listeners.push(listener);
    const { port } = listener.address() as { port: number };
    installations.push({ index, url: `http://${host}:${port}`, key: account.key, accountId: account.id });
  }

  return {
    installations,
    domain,
    listings,
    writes,
    get throttled() {
      return throttled;
    },
    async drift(installation, sites) {
      const domains: string[] = [];
      for (const site of sites) {
        const name = domain(installation, site);
        const id = await setPrivacy(installation, site, 0);
        idsToDomain.set(`${installation}:${id}`, name);
        driftedAt.set(`${installation}:${name}`, clock());
        domains.push(name);
      }
      return domains;
    },
    async restore(installation, sites) {
      for (const site of sites) await setPrivacy(installation, site, 1);
    },
    doubleWrites() {
      const counts = new Map<string, number>();
      for (const write of writes) {
        if (write.status >= 400) continue;
        const key = `${write.installation}:${write.site}`;
        if (write.at < (driftedAt.get(key) ?? 0)) continue;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return [...counts].filter(([, count]) => count > 1).map(([key]) => key);
    },
    async close() {
      await Promise.all(listeners.map((listener) => new Promise((resolve) => listener.close(resolve))));
      app.server.closeAllConnections();
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every installation's websites in one statement each (the triggers keep counts
 * and the search index); returns the id of each installation's first site.
 */
function seedWebsites(
  db: string,
  accounts: readonly { id: number }[],
  websites: number,
  domain: (installation: number, site: number) => string,
): number[] {
  const seed = new Database(db);
  try {
    const [prefix, suffix] = domain(0, 0).split('s0.i0');
    const insert = seed.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @websites - 1)
       INSERT INTO websites (account_id, domain, privacy, email, exclude_bots, favorited_at, created_at, updated_at)
       SELECT @accountId, @prefix || 's' || i || '.i' || @installation || @suffix, 1, 0, 1, NULL,
         '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z' FROM n`,
    );
    const first = seed.prepare('SELECT MIN(id) AS id FROM websites WHERE account_id = ?');
    return seed.transaction(() =>
      accounts.map((account, installation) => {
        insert.run({ websites, accountId: account.id, installation: String(installation), prefix, suffix });
        return (first.get(account.id) as { id: number }).id;
      }),
    )();
  } finally {
    seed.close();
  }
}
