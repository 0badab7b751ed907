/**
 * PostgreSQL backend of the reference server (node-postgres pool), for several
 * replicas sharing one state. Same semantics as store/sqlite/store.ts: website counts
 * kept by a trigger in per-connection slots (counters.ts), the website limit exact
 * without queueing unlimited accounts' creates (insert-website.ts), domains unique by index, lists serialised by
 * PostgreSQL (json_agg), key digests peppered with a secret kept in the database.
 */
import pg from 'pg';
import { ServerSetupError } from '../../setup-error.js';
import {
  type Account,
  type AccountSummary,
  DomainTakenError,
  type KeyInfo,
  type ListQuery,
  type ListResult,
  type RecordShape,
  type ServerStore,
  WebsiteLimitError,
  type WebsiteRecord,
  type WebsiteValues,
} from '../contract.js';
import type { PageAnchorOptions } from '../page-anchors.js';
import { COLUMN, COLUMNS, serviceTimestamp, UPDATABLE } from '../record-columns.js';
import { pepperWith } from '../server-secret.js';
import { boundAccountWrites } from './account-gate.js';
import { websiteCountSql } from './counters.js';
import { createPgDeepPages } from './deep-pages.js';
import { insertWebsiteSql } from './insert-website.js';
import { migratePostgres, PgSchemaTooNewError, PROVISIONING_LOCK } from './migrations.js';
import { pgRecordJsonSql, pgSearchSql } from './schema.js';
import { createPgThrottle } from './throttle.js';
import { isPgUnavailable } from './unavailable.js';

export interface PgStoreOptions {
  /** Connections in the pool; default 10. */
  poolSize?: number;
  /** A statement running longer is cancelled (an error, so 500); default 5,000 ms. */
  statementTimeoutMs?: number;
  /** Deep-page anchors (store/postgres/deep-pages.ts); defaults suit production, tests make them dense. */
  pageAnchors?: PageAnchorOptions;
}

interface AccountRow {
  id: number;
  name: string;
  websiteLimit: number | null;
  apiAccess: boolean;
  admin: boolean;
}

const ACCOUNT_COLUMNS = 'id, name, website_limit AS "websiteLimit", api_access AS "apiAccess", admin';
const KEY_COLUMNS = 'id, account_id AS "accountId", prefix, created_at AS "createdAt", source';
/** COLUMNS with quoted aliases: PostgreSQL folds unquoted names to lower case. */
const RECORD_COLUMNS = COLUMNS.replace(/ AS (\w+)/g, ' AS "$1"');
const UNIQUE_VIOLATION = '23505';

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The connection string as it may be shown: never the password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // libpq's other spelling: ?password=…
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

function toAccount(row: AccountRow | undefined): Account | undefined {
  return (
    row && { id: row.id, name: row.name, websiteLimit: row.websiteLimit, apiAccess: row.apiAccess, admin: row.admin }
  );
}

export async function openPostgresStore(url: string, options: PgStoreOptions = {}): Promise<ServerStore> {
  const poolSize = options.poolSize ?? 10;
  const statementTimeoutMs = options.statementTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: url,
    // One more than asked: exclusive() holds a connection for its lock while the work uses the others.
    max: poolSize + 1,
    statement_timeout: statementTimeoutMs,
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection dropped by the server must not crash the process: the next query reconnects.
  pool.on('error', () => {});
  let secret: Buffer;
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
      const { rows } = await client.query<{ secret: Buffer }>('SELECT secret FROM server_secret WHERE id = 1');
      secret = rows[0]!.secret;
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    const message = (error as Error).message || String((error as { code?: string }).code ?? error);
    if (error instanceof PgSchemaTooNewError) throw new ServerSetupError(`${redactedUrl(url)}: ${message}`);
    throw new ServerSetupError(`cannot use PostgreSQL at ${redactedUrl(url)}: ${message.split('\n')[0]}`);
  }
  const pepper = pepperWith(secret);

  async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await pool.query({ text, values })).rows as T[];
  }

  /** Deletes the keys matching `where` and remembers their digests (provisioning never brings them back): one statement. */
  async function revokeAndRemember(where: string, values: unknown[]): Promise<number> {
    const [row] = await rows<{ count: number }>(
      `WITH gone AS (DELETE FROM api_keys WHERE ${where} RETURNING key_hash),
        remembered AS (INSERT INTO revoked_keys (key_hash, revoked_at) SELECT key_hash, $1 FROM gone
          ON CONFLICT (key_hash) DO NOTHING)
       SELECT count(*)::int AS count FROM gone`,
      [serviceTimestamp(new Date()), ...values],
    );
    return row!.count;
  }

  const getWebsite = async (accountId: number, id: number) =>
    (
      await rows<WebsiteRecord>(`SELECT ${RECORD_COLUMNS} FROM websites WHERE account_id = $1 AND id = $2`, [
        accountId,
        id,
      ])
    )[0];

  const deepPages = createPgDeepPages(pool, options.pageAnchors);
  const listSql = new Map<string, string>();
  function listStatement(query: ListQuery, shape: RecordShape, searchWhere: string | undefined): string {
    const key = `${query.sortBy}:${query.sort}:${searchWhere ?? '-'}:${query.favorite ?? '-'}:${shape.map(([k]) => k).join(',')}`;
    let text = listSql.get(key);
    if (!text) {
      let where = 'account_id = $1';
      if (searchWhere) where += ` AND ${searchWhere}`;
      if (query.favorite !== undefined) where += ` AND favorited_at IS ${query.favorite ? 'NOT NULL' : 'NULL'}`;
      const order = `${query.sortBy === 'domain' ? 'domain' : 'id'} ${query.sort === 'asc' ? 'ASC' : 'DESC'}`;
      const filtered = searchWhere !== undefined || query.favorite !== undefined;
      const total = filtered
        ? `(SELECT count(*)::int FROM websites WHERE ${where})`
        : `(SELECT ${websiteCountSql()} FROM accounts WHERE id = $1)`;
      // One statement, so one snapshot: the page and the total agree.
      text = `WITH page AS (SELECT * FROM websites WHERE ${where} ORDER BY ${order} LIMIT $2 OFFSET $3)
        SELECT coalesce(json_agg(${pgRecordJsonSql(shape)} ORDER BY ${order}), '[]')::text AS json,
          count(*)::int AS count, coalesce(${total}, 0) AS total FROM page`;
      listSql.set(key, text);
    }
    return text;
  }

  return boundAccountWrites<ServerStore>(
    {
      async ping() {
        await pool.query('SELECT 1');
      },
      async listWebsites(query, shape): Promise<ListResult> {
        if (deepPages.applies(query)) {
          const page = await deepPages.list(query, shape);
          if (page) return page;
        }
        const search = query.search && pgSearchSql(query.search, '$4');
        const values: unknown[] = [query.accountId, query.limit, query.offset];
        if (search?.where.includes('$4')) values.push(search.value);
        const [row] = await rows<ListResult>(listStatement(query, shape, search?.where), values);
        return row!;
      },
      getWebsite,
      async domainExists(domain) {
        return (await rows('SELECT 1 FROM websites WHERE domain = $1', [domain])).length > 0;
      },
      async countWebsites(accountId) {
        const [row] = await rows<{ count: number }>(
          `SELECT ${websiteCountSql()} AS count FROM accounts WHERE id = $1`,
          [accountId],
        );
        return row?.count ?? 0;
      },
      async insertWebsite(accountId, domain, values, now) {
        const params = [
          accountId,
          domain,
          values.privacy,
          values.passwordHash,
          values.email,
          values.excludeBots,
          values.excludeParams,
          values.excludeIps,
          values.favoritedAt,
          serviceTimestamp(now),
        ];
        try {
          // Most accounts have no limit: their creates run side by side; the others take turns (insert-website.ts).
          let inserted = await rows<WebsiteRecord>(insertWebsiteSql('unlimited', RECORD_COLUMNS), params);
          if (inserted.length === 0)
            inserted = await rows<WebsiteRecord>(insertWebsiteSql('limited', RECORD_COLUMNS), params);
          if (inserted.length === 0) throw new WebsiteLimitError(accountId);
          return inserted[0]!;
        } catch (error) {
          if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new DomainTakenError(domain);
          throw error;
        }
      },
      async updateWebsite(accountId, id, changes, now) {
        const columns = (Object.keys(changes) as (keyof WebsiteValues)[]).filter((name) => UPDATABLE.has(name)).sort();
        const sets = columns.map((name, index) => `${COLUMN[name]} = $${index + 4}`);
        const updated = await rows<WebsiteRecord>(
          `UPDATE websites SET ${[...sets, 'updated_at = $3'].join(', ')} WHERE account_id = $1 AND id = $2
         RETURNING ${RECORD_COLUMNS}`,
          [accountId, id, serviceTimestamp(now), ...columns.map((name) => changes[name])],
        );
        return updated[0];
      },
      async deleteWebsite(accountId, id) {
        return (
          (await pool.query('DELETE FROM websites WHERE account_id = $1 AND id = $2', [accountId, id])).rowCount! > 0
        );
      },
      async createAccount({ name, websiteLimit = null, apiAccess = true, admin = false }) {
        const [row] = await rows<{ id: number }>(
          `INSERT INTO accounts (name, website_limit, api_access, admin, created_at)
           VALUES ($1, $2, $3, $4, $5) RETURNING id`,
          [name, websiteLimit, apiAccess, admin, serviceTimestamp(new Date())],
        );
        return { id: row!.id, name, websiteLimit, apiAccess, admin };
      },
      async updateAccount(id, settings) {
        const [row] = await rows<AccountRow>(
          `UPDATE accounts SET
           website_limit = CASE WHEN $2 THEN $3::int ELSE website_limit END,
           api_access = coalesce($4, api_access),
           admin = coalesce($5, admin)
         WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
          [
            id,
            settings.websiteLimit !== undefined,
            settings.websiteLimit ?? null,
            settings.apiAccess ?? null,
            settings.admin ?? null,
          ],
        );
        return toAccount(row);
      },
      async findAccountByName(name) {
        return toAccount(
          (await rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = $1`, [name]))[0],
        );
      },
      async listAccounts() {
        const keys = await rows<KeyInfo>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`);
        const accounts = await rows<AccountRow & { websiteCount: number }>(
          `SELECT ${ACCOUNT_COLUMNS}, ${websiteCountSql()} AS "websiteCount" FROM accounts ORDER BY id`,
        );
        return accounts.map(
          (row): AccountSummary => ({
            ...toAccount(row)!,
            websiteCount: row.websiteCount,
            keys: keys.filter((key) => key.accountId === row.id),
          }),
        );
      },
      async addKey(accountId, keyHash, { source, prefix }) {
        const [row] = await rows<KeyInfo>(
          `INSERT INTO api_keys (account_id, key_hash, source, prefix, created_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${KEY_COLUMNS}`,
          [accountId, pepper(keyHash), source, prefix, serviceTimestamp(new Date())],
        );
        return row!;
      },
      async findKey(keyHash) {
        const [row] = await rows<AccountRow & { keyId: number }>(
          `SELECT a.id, a.name, a.website_limit AS "websiteLimit", a.api_access AS "apiAccess", a.admin, k.id AS "keyId"
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
          [pepper(keyHash)],
        );
        return row && { account: toAccount(row)!, keyId: row.keyId, keyHash };
      },
      async revokeKey(keyId) {
        return (await revokeAndRemember('id = $2', [keyId])) > 0;
      },
      async revokeOtherKeys(accountId, keepKeyId) {
        return revokeAndRemember('account_id = $2 AND id <> $3', [accountId, keepKeyId]);
      },
      async wasRevoked(keyHash) {
        return (await rows('SELECT 1 FROM revoked_keys WHERE key_hash = $1', [pepper(keyHash)])).length > 0;
      },
      async revokeProvisionedKeysExcept(keyHashes) {
        const result = await pool.query(
          "DELETE FROM api_keys WHERE source = 'provisioned' AND NOT (key_hash = ANY($1::text[]))",
          [keyHashes.map(pepper)],
        );
        return result.rowCount!;
      },
      async exclusive(work) {
        const client = await pool.connect();
        try {
          await client.query('SELECT pg_advisory_lock($1)', [PROVISIONING_LOCK.toString()]);
          try {
            return await work();
          } finally {
            await client.query('SELECT pg_advisory_unlock($1)', [PROVISIONING_LOCK.toString()]);
          }
        } finally {
          client.release();
        }
      },
      sharedThrottle(scope, limit, windowMs, clock) {
        return createPgThrottle(pool, scope, limit, windowMs, clock);
      },
      unavailable: isPgUnavailable,
      async stats() {
        const [row] = await rows<{ accounts: number; websites: number }>(
          `SELECT count(*)::int AS accounts, (coalesce(sum(website_count), 0)
           + (SELECT coalesce(sum(count), 0) FROM website_counters))::int AS websites FROM accounts`,
        );
        return { ...row!, pool: { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount } };
      },
      async close() {
        // The operator probe closes the store under a running server, which closes it again on stop.
        if (!pool.ended) await pool.end();
      },
    },
    poolSize,
    statementTimeoutMs,
  );
}
