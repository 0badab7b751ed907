/**
 * SQLite backend of the reference server (better-sqlite3, WAL). The schema is
 * created on first start; every statement is prepared once and reused, since
 * the list and create paths run thousands of times a second in the benchmark.
 */
import Database from 'better-sqlite3';
import { COLUMN, COLUMNS, recordJsonSql, SCHEMA, UPDATABLE } from './sqlite-schema.js';
import {
  type Account,
  DomainTakenError,
  type ListQuery,
  type ListResult,
  type RecordShape,
  type ServerStore,
  type WebsiteRecord,
  type WebsiteValues,
} from './store.js';

interface AccountRow {
  id: number;
  name: string;
  websiteLimit: number | null;
  apiAccess: number;
}

const ACCOUNT_COLUMNS = 'id, name, website_limit AS websiteLimit, api_access AS apiAccess';

/** The service's timestamp format: ISO-8601 UTC, microseconds always zero. */
export function serviceTimestamp(now: Date): string {
  return `${now.toISOString().slice(0, 19)}.000000Z`;
}

function toAccount(row: AccountRow | undefined): Account | undefined {
  return row && { id: row.id, name: row.name, websiteLimit: row.websiteLimit, apiAccess: row.apiAccess === 1 };
}

export function openSqliteStore(path: string): ServerStore {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL is durable across application crashes and much faster per commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);

  const statements = {
    get: db.prepare(`SELECT ${COLUMNS} FROM websites WHERE account_id = ? AND id = ?`),
    domainExists: db.prepare('SELECT 1 FROM websites WHERE domain = ?').pluck(),
    count: db.prepare('SELECT website_count FROM accounts WHERE id = ?').pluck(),
    insert: db.prepare(
      `INSERT INTO websites (account_id, domain, privacy, password_hash, email, exclude_bots, exclude_params,
        exclude_ips, favorited_at, created_at, updated_at)
       VALUES (@accountId, @domain, @privacy, @passwordHash, @email, @excludeBots, @excludeParams,
        @excludeIps, @favoritedAt, @now, @now)`,
    ),
    delete: db.prepare('DELETE FROM websites WHERE account_id = ? AND id = ?'),
    createAccount: db.prepare(
      'INSERT INTO accounts (name, website_limit, api_access, created_at) VALUES (?, ?, ?, ?) RETURNING id',
    ),
    accountById: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`),
    updateAccount: db.prepare('UPDATE accounts SET website_limit = ?, api_access = ? WHERE id = ?'),
    accountByName: db.prepare(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ?`),
    addKey: db.prepare('INSERT INTO api_keys (account_id, key_hash, created_at) VALUES (?, ?, ?)'),
    findKey: db.prepare(
      `SELECT a.id, a.name, a.website_limit AS websiteLimit, a.api_access AS apiAccess, k.key_hash AS keyHash
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
    ),
  };
  const listStatements = new Map<
    string,
    { page: Database.Statement; pageFromEnd: Database.Statement; total: Database.Statement }
  >();
  const updateStatements = new Map<string, Database.Statement>();

  function listStatement(query: ListQuery, shape: RecordShape) {
    const search = query.search ? (query.search.literal ? 'l' : 'w') : '-';
    const key = `${query.sortBy}:${query.sort}:${search}:${query.favorite ?? '-'}:${shape.map(([k]) => k).join(',')}`;
    let cached = listStatements.get(key);
    if (!cached) {
      let where = 'account_id = @accountId';
      if (query.search) where += ` AND domain LIKE @pattern${query.search.literal ? " ESCAPE '\\'" : ''}`;
      if (query.favorite !== undefined) where += ` AND favorited_at IS ${query.favorite ? 'NOT NULL' : 'NULL'}`;
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
        total: filtered
          ? db.prepare(`SELECT COUNT(*) FROM websites WHERE ${where}`).pluck()
          : db.prepare('SELECT website_count FROM accounts WHERE id = @accountId').pluck(),
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

  // One read transaction: the total and the page come from the same snapshot.
  const readList = db.transaction((query: ListQuery, shape: RecordShape): ListResult => {
    const { page, pageFromEnd, total: totalStatement } = listStatement(query, shape);
    const params: Record<string, unknown> = { accountId: query.accountId };
    if (query.search) {
      const text = query.search.literal ? query.search.text.replace(/[\\%_]/g, '\\$&') : query.search.text;
      params.pattern = `%${text}%`;
    }
    const total = (totalStatement.get(params) as number | undefined) ?? 0;
    const end = Math.min(query.offset + query.limit, total);
    if (end <= query.offset) return { json: '[]', count: 0, total };
    // Rows [offset, end) in this order are rows [total - end, total - offset) in the reverse one.
    const fromEnd = total - end < query.offset;
    const statement = fromEnd ? pageFromEnd : page;
    const window = fromEnd ? { limit: end - query.offset, offset: total - end } : query;
    const { json, count } = statement.get({ ...params, limit: window.limit, offset: window.offset }) as ListResult;
    return { json, count, total };
  });

  const getWebsite = (accountId: number, id: number) => statements.get.get(accountId, id) as WebsiteRecord | undefined;

  return {
    listWebsites: (query: ListQuery, shape: RecordShape): ListResult => readList(query, shape),
    getWebsite,
    domainExists: (domain) => statements.domainExists.get(domain) !== undefined,
    countWebsites: (accountId) => statements.count.get(accountId) as number,
    insertWebsite(accountId, domain, values, now) {
      try {
        const result = statements.insert.run({ accountId, domain, now: serviceTimestamp(now), ...values });
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
    createAccount({ name, websiteLimit = null, apiAccess = true }) {
      const id = statements.createAccount
        .pluck()
        .get(name, websiteLimit, apiAccess ? 1 : 0, serviceTimestamp(new Date()));
      return { id: id as number, name, websiteLimit, apiAccess };
    },
    updateAccount(id, settings) {
      const current = toAccount(statements.accountById.get(id) as AccountRow | undefined);
      if (!current) return undefined;
      const next = { ...current, ...settings };
      statements.updateAccount.run(next.websiteLimit, next.apiAccess ? 1 : 0, id);
      return next;
    },
    findAccountByName: (name) => toAccount(statements.accountByName.get(name) as AccountRow | undefined),
    addKey(accountId, keyHash) {
      statements.addKey.run(accountId, keyHash, serviceTimestamp(new Date()));
    },
    findKey(keyHash) {
      const row = statements.findKey.get(keyHash) as (AccountRow & { keyHash: string }) | undefined;
      return row && { account: toAccount(row)!, keyHash: row.keyHash };
    },
    ping: () => {
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    },
    close: () => db.close(),
  };
}
