/**
 * SQLite backend of the reference server (better-sqlite3, WAL). The schema is
 * created on first start; every statement is prepared once and reused, since
 * the list and create paths run thousands of times a second in the benchmark.
 */
import { closeSync, existsSync, fchmodSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
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
  StoreFullError,
  WebsiteLimitError,
  type WebsiteRecord,
  type WebsiteValues,
} from '../contract.js';
import { isFiltered, type PageAnchorOptions } from '../page-anchors.js';
import { COLUMN, COLUMNS, serviceTimestamp, UPDATABLE } from '../record-columns.js';
import { loadServerSecret, pepperWith } from '../server-secret.js';
import { lockWaiting, openingWhenUnlocked, type SyncOperations } from './busy.js';
import { watchFullness } from './full.js';
import { checkSitesyncFile } from './identify.js';
import { migrate, SchemaTooNewError } from './migrations.js';
import { createPageAnchors } from './page-anchors.js';
import { recordJsonSql } from './schema.js';
import { searchSql } from './search.js';

interface AccountRow {
  id: number;
  name: string;
  websiteLimit: number | null;
  apiAccess: number;
  admin: number;
}

const ACCOUNT_COLUMNS = 'id, name, website_limit AS websiteLimit, api_access AS apiAccess, admin';

/** The service's timestamp format: ISO-8601 UTC, microseconds always zero. */
function toAccount(row: AccountRow | undefined): Account | undefined {
  return (
    row && {
      id: row.id,
      name: row.name,
      websiteLimit: row.websiteLimit,
      apiAccess: row.apiAccess === 1,
      admin: row.admin === 1,
    }
  );
}

const KEY_COLUMNS = 'id, account_id AS accountId, prefix, created_at AS createdAt, source';

/** A new database file is created 0600 before SQLite opens it (its -wal and -shm files take the same mode). */
function createPrivateFile(path: string): void {
  const directory = dirname(path);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new ServerSetupError(`the database directory ${directory} does not exist`);
  }
  try {
    const fd = openSync(path, 'wx', 0o600);
    fchmodSync(fd, 0o600); // whatever the umask
    closeSync(fd);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
}

function openDatabase(path: string): Database.Database {
  try {
    return new Database(path);
  } catch (error) {
    throw new ServerSetupError(`cannot open the database ${path}: ${(error as Error).message}`);
  }
}

export interface SqliteStoreOptions {
  /** How long a write waits for another connection's lock before StoreBusyError; default 5 s. */
  lockWaitMs?: number;
  /** The most pages the file may grow to (PRAGMA max_page_count): past it, writes fail as on a full disk. */
  maxPages?: number;
  /** Deep-page anchors (store/page-anchors.ts); defaults suit production, tests make them dense. */
  pageAnchors?: PageAnchorOptions;
  /** Told once when opening waits for another process's lock (the server logs it). */
  onLockWait?: () => void;
}

const DEFAULT_LOCK_WAIT_MS = 5_000;

/** The store's operations before lock waiting: synchronous, as better-sqlite3 is. */
type Operations = SyncOperations<Omit<ServerStore, 'close'>>;

export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): ServerStore {
  checkSitesyncFile(path);
  if (path !== ':memory:') createPrivateFile(path);
  const pepper = pepperWith(loadServerSecret(path));
  const db = openDatabase(path);
  try {
    // A short busy handler per attempt; a second process starting at once is waited for by the retries.
    db.pragma('busy_timeout = 100');
    openingWhenUnlocked(() => {
      db.pragma('journal_mode = WAL');
      // WAL + NORMAL is durable across application crashes and much faster per commit.
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      migrate(db, { pepper });
    }, options.onLockWait);
    if (options.maxPages !== undefined) db.pragma(`max_page_count = ${Math.floor(options.maxPages)}`);
    // From here on a locked file fails at once and is waited for off the event loop (store/sqlite/busy.ts).
    db.pragma('busy_timeout = 0');
  } catch (error) {
    db.close();
    if (error instanceof SchemaTooNewError) throw new ServerSetupError(`${path}: ${error.message}`);
    throw error;
  }

  const statements = {
    get: db.prepare(`SELECT ${COLUMNS} FROM websites WHERE account_id = ? AND id = ?`),
    domainExists: db.prepare('SELECT 1 FROM websites WHERE domain = ?').pluck(),
    count: db.prepare('SELECT website_count FROM accounts WHERE id = ?').pluck(),
    // The limit check and the insert are one statement, so one write lock: concurrent
    // creates (from any process) cannot all pass the check before any of them inserts.
    insert: db.prepare(
      `INSERT INTO websites (account_id, domain, privacy, password_hash, email, exclude_bots, exclude_params,
        exclude_ips, favorited_at, created_at, updated_at)
       SELECT @accountId, @domain, @privacy, @passwordHash, @email, @excludeBots, @excludeParams,
        @excludeIps, @favoritedAt, @now, @now
       WHERE EXISTS (SELECT 1 FROM accounts WHERE id = @accountId
        AND (website_limit IS NULL OR website_count < website_limit))`,
    ),
    delete: db.prepare('DELETE FROM websites WHERE account_id = ? AND id = ?'),
    createAccount: db.prepare(
      'INSERT INTO accounts (name, website_limit, api_access, admin, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
    ),
    accountById: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`),
    updateAccount: db.prepare('UPDATE accounts SET website_limit = ?, api_access = ?, admin = ? WHERE id = ?'),
    accountByName: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ?`),
    addKey: db.prepare(
      `INSERT INTO api_keys (account_id, key_hash, source, prefix, created_at) VALUES (?, ?, ?, ?, ?)
       RETURNING ${KEY_COLUMNS}`,
    ),
    findKey: db.prepare(
      `SELECT a.id, a.name, a.website_limit AS websiteLimit, a.api_access AS apiAccess, a.admin, k.id AS keyId
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
    ),
    accounts: db.prepare(`SELECT ${ACCOUNT_COLUMNS}, website_count AS websiteCount FROM accounts ORDER BY id`),
    keys: db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`),
    revokeKey: db.prepare('DELETE FROM api_keys WHERE id = ?'),
    // Remembered first: provisioning must never bring a revoked key back.
    rememberKey: db.prepare(
      'INSERT OR IGNORE INTO revoked_keys (key_hash, revoked_at) SELECT key_hash, ? FROM api_keys WHERE id = ?',
    ),
    rememberOtherKeys: db.prepare(
      `INSERT OR IGNORE INTO revoked_keys (key_hash, revoked_at)
       SELECT key_hash, ? FROM api_keys WHERE account_id = ? AND id <> ?`,
    ),
    revokeOtherKeys: db.prepare('DELETE FROM api_keys WHERE account_id = ? AND id <> ?'),
    wasRevoked: db.prepare('SELECT 1 FROM revoked_keys WHERE key_hash = ?').pluck(),
    provisionedKeys: db.prepare("SELECT id, key_hash AS keyHash FROM api_keys WHERE source = 'provisioned'"),
    // Accounts are few; websites are counted by the triggers, never scanned.
    stats: db.prepare('SELECT count(*) AS accounts, coalesce(sum(website_count), 0) AS websites FROM accounts'),
  };
  let busyRetries = 0;
  const listStatements = new Map<
    string,
    {
      page: Database.Statement;
      pageFromEnd: Database.Statement;
      anchored: Database.Statement;
      /** The filter's conditions (the account's included), to build its anchors with. */
      where: string;
      total: Database.Statement;
    }
  >();
  const updateStatements = new Map<string, Database.Statement>();

  function listStatement(query: ListQuery, shape: RecordShape) {
    const search = query.search && searchSql(query.search);
    const key = `${query.sortBy}:${query.sort}:${search?.shape ?? '-'}:${query.favorite ?? '-'}:${shape.map(([k]) => k).join(',')}`;
    let cached = listStatements.get(key);
    if (!cached) {
      // With a search, the unary + keeps SQLite from walking the account's index instead of the few matches.
      const favorite =
        query.favorite === undefined ? '' : ` AND favorited_at IS ${query.favorite ? 'NOT NULL' : 'NULL'}`;
      const where = `${search ? `+account_id = @accountId AND ${search.where}` : 'account_id = @accountId'}${favorite}`;
      // From an anchor, the account's index is walked and each row tested (no trigram lookup).
      const walked = `account_id = @accountId${search ? ` AND ${search.exact}` : ''}${favorite}`;
      // Ties on domain cannot happen (unique), so id/domain alone give a stable order.
      const column = query.sortBy === 'domain' ? 'domain' : 'id';
      const order = `${column} ${query.sort === 'asc' ? 'ASC' : 'DESC'}`;
      const reverse = `${column} ${query.sort === 'asc' ? 'DESC' : 'ASC'}`;
      const filtered = query.search !== undefined || query.favorite !== undefined;
      // OFFSET walks every skipped row: skip in the covering index (from whichever end is
      // nearer), then read only the page's rows and serialise them in the requested order.
      const pageSql = (skipOrder: string) =>
        db.prepare(
          `SELECT json_group_array(${recordJsonSql(shape)} ORDER BY ${order}) AS json,
            COUNT(*) AS count
           FROM websites WHERE id IN
            (SELECT id FROM websites WHERE ${where} ORDER BY ${skipOrder} LIMIT @limit OFFSET @offset)`,
        );
      cached = {
        page: pageSql(order),
        pageFromEnd: pageSql(reverse),
        // Deep pages start from a page anchor (store/sqlite/page-anchors.ts) instead.
        anchored: db.prepare(
          `SELECT json_group_array(${recordJsonSql(shape)} ORDER BY ${order}) AS json, COUNT(*) AS count
           FROM websites WHERE id IN (SELECT id FROM websites WHERE ${walked}
            AND ${column} >= @from ORDER BY ${column} ASC LIMIT @limit OFFSET @skip)`,
        ),
        where,
        total: !filtered
          ? db.prepare('SELECT website_count FROM accounts WHERE id = @accountId').pluck()
          : query.favorite === false && !search
            ? // Non-favourites are most sites: count the few favourites (partial index) instead.
              db
                .prepare(
                  `SELECT website_count - (SELECT COUNT(*) FROM websites
                    WHERE account_id = @accountId AND favorited_at IS NOT NULL) FROM accounts WHERE id = @accountId`,
                )
                .pluck()
            : db.prepare(`SELECT COUNT(*) FROM websites WHERE ${where}`).pluck(),
      };
      listStatements.set(key, cached);
    }
    return cached;
  }

  function updateStatement(columns: (keyof WebsiteValues)[]): Database.Statement {
    const key = columns.join(',');
    let statement = updateStatements.get(key);
    if (!statement) {
      const sets = columns.map((name) => `${COLUMN[name]} = @${name}`);
      statement = db.prepare(
        `UPDATE websites SET ${[...sets, 'updated_at = @now'].join(', ')} WHERE account_id = @accountId AND id = @id`,
      );
      updateStatements.set(key, statement);
    }
    return statement;
  }

  const anchors = createPageAnchors(db, options.pageAnchors);

  // One read transaction: the total and the page come from the same snapshot.
  const readList = db.transaction((query: ListQuery, shape: RecordShape): ListResult => {
    const { page, pageFromEnd, anchored, where, total: totalStatement } = listStatement(query, shape);
    const params: Record<string, unknown> = {
      accountId: query.accountId,
      ...(query.search && searchSql(query.search).params),
    };
    const filter = { search: query.search, favorite: query.favorite };
    const filtered = isFiltered(filter) ? { filter, where, params } : undefined;
    const countAll = () => (totalStatement.get(params) as number | undefined) ?? 0;
    const total = filtered ? anchors.filteredTotal(query.accountId, filter, countAll) : countAll();
    const end = Math.min(query.offset + query.limit, total);
    if (end <= query.offset) return { json: '[]', count: 0, total };
    const ascStart = query.sort === 'asc' ? query.offset : total - end;
    const start = anchors.locate(query.accountId, query.sortBy, ascStart, total, filtered);
    if (start) {
      const { json, count } = anchored.get({ ...params, ...start, limit: end - query.offset }) as ListResult;
      return { json, count, total };
    }
    // Rows [offset, end) in this order are rows [total - end, total - offset) in the reverse one.
    const fromEnd = total - end < query.offset;
    const statement = fromEnd ? pageFromEnd : page;
    const window = fromEnd ? { limit: end - query.offset, offset: total - end } : query;
    const { json, count } = statement.get({ ...params, limit: window.limit, offset: window.offset }) as ListResult;
    return { json, count, total };
  });

  const getWebsite = (accountId: number, id: number) => statements.get.get(accountId, id) as WebsiteRecord | undefined;

  const operations: Operations = {
    ping: () => {
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    },
    listWebsites: (query: ListQuery, shape: RecordShape): ListResult => readList(query, shape),
    getWebsite,
    domainExists: (domain) => statements.domainExists.get(domain) !== undefined,
    countWebsites: (accountId) => statements.count.get(accountId) as number,
    insertWebsite(accountId, domain, values, now) {
      try {
        const result = statements.insert.run({ accountId, domain, now: serviceTimestamp(now), ...values });
        if (result.changes === 0) throw new WebsiteLimitError(accountId);
        return getWebsite(accountId, Number(result.lastInsertRowid))!;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new DomainTakenError(domain);
        throw error;
      }
    },
    updateWebsite(accountId, id, changes, now) {
      const columns = (Object.keys(changes) as (keyof WebsiteValues)[]).filter((name) => UPDATABLE.has(name)).sort();
      const result = updateStatement(columns).run({ ...changes, accountId, id, now: serviceTimestamp(now) });
      return result.changes === 0 ? undefined : getWebsite(accountId, id);
    },
    deleteWebsite: (accountId, id) => statements.delete.run(accountId, id).changes > 0,
    createAccount({ name, websiteLimit = null, apiAccess = true, admin = false }) {
      const id = statements.createAccount
        .pluck()
        .get(name, websiteLimit, apiAccess ? 1 : 0, admin ? 1 : 0, serviceTimestamp(new Date()));
      return { id: id as number, name, websiteLimit, apiAccess, admin };
    },
    updateAccount(id, settings) {
      const current = toAccount(statements.accountById.get(id) as AccountRow | undefined);
      if (!current) return undefined;
      const next = { ...current, ...settings };
      statements.updateAccount.run(next.websiteLimit, next.apiAccess ? 1 : 0, next.admin ? 1 : 0, id);
      return next;
    },
    findAccountByName: (name) => toAccount(statements.accountByName.get(name) as AccountRow | undefined),
    addKey: (accountId, keyHash, { source, prefix }) =>
      statements.addKey.get(accountId, pepper(keyHash), source, prefix, serviceTimestamp(new Date())) as KeyInfo,
    findKey(keyHash) {
      // Looked up by HMAC digest: its timing tells a guesser nothing about stored digests.
      const row = statements.findKey.get(pepper(keyHash)) as (AccountRow & { keyId: number }) | undefined;
      return row && { account: toAccount(row)!, keyId: row.keyId, keyHash };
    },
    listAccounts() {
      const keys = statements.keys.all() as KeyInfo[];
      const rows = statements.accounts.all() as (AccountRow & { websiteCount: number })[];
      return rows.map(
        (row): AccountSummary => ({
          ...toAccount(row)!,
          websiteCount: row.websiteCount,
          keys: keys.filter((key) => key.accountId === row.id),
        }),
      );
    },
    revokeKey: db.transaction((keyId: number) => {
      statements.rememberKey.run(serviceTimestamp(new Date()), keyId);
      return statements.revokeKey.run(keyId).changes > 0;
    }),
    revokeOtherKeys: db.transaction((accountId: number, keepKeyId: number) => {
      statements.rememberOtherKeys.run(serviceTimestamp(new Date()), accountId, keepKeyId);
      return statements.revokeOtherKeys.run(accountId, keepKeyId).changes;
    }),
    wasRevoked: (keyHash) => statements.wasRevoked.get(pepper(keyHash)) !== undefined,
    revokeProvisionedKeysExcept: (keyHashes) => {
      const keep = new Set(keyHashes.map(pepper));
      const stale = (statements.provisionedKeys.all() as { id: number; keyHash: string }[]).filter(
        (row) => !keep.has(row.keyHash),
      );
      db.transaction(() => {
        for (const row of stale) statements.revokeKey.run(row.id);
      })();
      return stale.length;
    },
  };
  const full = watchFullness(operations);
  const ping = full.operations.ping;
  full.operations.ping = () => {
    if (full.failing()) throw new StoreFullError();
    ping();
  };
  return {
    ...lockWaiting<Omit<ServerStore, 'close'>>(full.operations, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, () => {
      busyRetries += 1;
    }),
    stats: async () => ({ ...(statements.stats.get() as { accounts: number; websites: number }), busyRetries }),
    close: async () => {
      db.close();
    },
  };
}
