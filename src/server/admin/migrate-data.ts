/**
 * `sitesync serve migrate-data`: copies an SQLite database (accounts, keys,
 * revoked keys' digests, websites) into PostgreSQL, ids kept. The key digests are HMACs with the
 * SQLite file's secret (`<db>.secret`), so that secret becomes the PostgreSQL
 * database's `server_secret`: every key keeps working. The whole copy is one
 * PostgreSQL transaction, verified before it commits: per-table counts and a
 * checksum over the same canonical rows, read from each side (admin/migrate-checksum.ts).
 * A mismatch rolls everything back.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ServerSetupError } from '../setup-error.js';
import { migratePostgres } from '../store/postgres/migrations.js';
import { redactedUrl } from '../store/postgres/store.js';
import { readServerSecret, secretPath } from '../store/server-secret.js';
import { checkSitesyncFile } from '../store/sqlite/identify.js';
import { SCHEMA_VERSION } from '../store/sqlite/migrations.js';
import { canonicalChecksum, TABLES, type TableName } from './migrate-checksum.js';

export interface MigrateDataOptions {
  /** Empty the target first; without it a target holding any account, key or website is refused. */
  replace?: boolean;
  /** Rows per batch (default 5,000). */
  batchSize?: number;
}

export interface MigrateDataResult {
  counts: Record<TableName, number>;
  /** sha256 (hex) of the canonical rows, the same on both sides. */
  checksum: string;
  /** The id the next website created on PostgreSQL gets. */
  nextWebsiteId: number;
}

/** Insert statements: one unnest() per batch, columns as arrays (typed, so NULLs keep their type). */
const INSERT: Record<TableName, string> = {
  accounts: `INSERT INTO accounts (id, name, website_limit, api_access, admin, created_at)
    SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::bool[], $5::bool[], $6::text[])`,
  api_keys: `INSERT INTO api_keys (id, account_id, key_hash, source, prefix, created_at)
    SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
  revoked_keys: `INSERT INTO revoked_keys (id, key_hash, revoked_at)
    SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`,
  websites: `INSERT INTO websites (id, account_id, domain, privacy, password_hash, email, exclude_bots,
      exclude_params, exclude_ips, favorited_at, created_at, updated_at)
    SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::text[], $6::int[], $7::int[],
      $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])`,
};

type Row = unknown[];

/** The next `limit` rows after `afterId`, as arrays in TABLES' column order. */
type ReadBatch = (table: TableName, afterId: number, limit: number) => Promise<Row[]>;

function openSource(path: string): Database.Database {
  if (!existsSync(path)) throw new ServerSetupError(`no database at ${path}`);
  checkSitesyncFile(path);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new ServerSetupError(`cannot open the database ${path}: ${(error as Error).message}`);
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    db.close();
    throw new ServerSetupError(
      `${path} has schema version ${version}, this sitesync copies version ${SCHEMA_VERSION}: ` +
        `start \`sitesync serve --db ${path}\` once (it upgrades the file), then migrate`,
    );
  }
  return db;
}

function sqliteReader(db: Database.Database): ReadBatch {
  const statements = Object.fromEntries(
    TABLES.map(({ name, columns }) => [
      name,
      db.prepare(`SELECT ${columns.join(', ')} FROM ${name} WHERE id > ? ORDER BY id LIMIT ?`).raw(),
    ]),
  ) as Record<TableName, Database.Statement>;
  return async (table, afterId, limit) => statements[table].all(afterId, limit) as Row[];
}

function postgresReader(client: pg.PoolClient): ReadBatch {
  return async (table, afterId, limit) => {
    const { columns } = TABLES.find(({ name }) => name === table)!;
    const result = await client.query({
      text: `SELECT ${columns.join(', ')} FROM ${table} WHERE id > $1 ORDER BY id LIMIT $2`,
      values: [afterId, limit],
      rowMode: 'array',
    });
    return result.rows as Row[];
  };
}

/** Every row of a table, batch by batch in id order. */
async function* rowsOf(read: ReadBatch, table: TableName, batchSize: number): AsyncGenerator<Row[]> {
  let afterId = 0;
  for (;;) {
    const batch = await read(table, afterId, batchSize);
    if (batch.length === 0) return;
    yield batch;
    afterId = batch[batch.length - 1]![0] as number;
  }
}

const BOOLEANS = new Set(['api_access', 'admin']);

/** Rows → one array per column, booleans as PostgreSQL wants them. */
function columnArrays(table: TableName, batch: Row[]): unknown[][] {
  const { columns } = TABLES.find(({ name }) => name === table)!;
  return columns.map((column, index) =>
    batch.map((row) => (BOOLEANS.has(column) ? row[index] === 1 || row[index] === true : row[index])),
  );
}

async function connectTarget(url: string): Promise<{ pool: pg.Pool; client: pg.PoolClient }> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } catch (error) {
      client.release();
      throw error;
    }
    return { pool, client };
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ServerSetupError(`cannot use PostgreSQL at ${redactedUrl(url)}: ${oneLine(error)}`);
  }
}

function oneLine(error: unknown): string {
  return ((error as Error).message || String((error as { code?: string }).code ?? error)).split('\n')[0]!;
}

async function targetCounts(client: pg.PoolClient): Promise<Record<TableName, number>> {
  const counts = {} as Record<TableName, number>;
  for (const { name } of TABLES) {
    counts[name] = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`)).rows[0]!.n;
  }
  return counts;
}

const describeCounts = (counts: Record<TableName, number>) =>
  `${counts.accounts} account(s), ${counts.api_keys} key(s), ` +
  `${counts.revoked_keys > 0 ? `${counts.revoked_keys} revoked key(s), ` : ''}${counts.websites} website(s)`;

export async function migrateData(
  from: string,
  to: string,
  options: MigrateDataOptions = {},
): Promise<MigrateDataResult> {
  const batchSize = options.batchSize ?? 5_000;
  const source = openSource(from);
  try {
    if (!existsSync(secretPath(from))) {
      throw new ServerSetupError(
        `${secretPath(from)} is missing: the keys of ${from} are digests peppered with it, so none would work ` +
          'after the copy (put the secret back beside the file)',
      );
    }
    const secret = readServerSecret(from);
    const { pool, client } = await connectTarget(to);
    try {
      // One read transaction: the copy and its checksum come from one snapshot of the file.
      source.exec('BEGIN');
      await client.query('BEGIN');
      try {
        // No server may write between the emptiness check and the commit.
        await client.query('LOCK TABLE accounts, api_keys, revoked_keys, websites IN SHARE ROW EXCLUSIVE MODE');
        const existing = await targetCounts(client);
        if (Object.values(existing).some((count) => count > 0)) {
          if (!options.replace) {
            throw new ServerSetupError(
              `${redactedUrl(to)} already holds ${describeCounts(existing)}: ` +
                'migrate into an empty database, or pass --replace to delete them first',
            );
          }
          await client.query('TRUNCATE websites, website_counters, api_keys, revoked_keys, accounts RESTART IDENTITY');
        }
        await client.query('UPDATE server_secret SET secret = $1 WHERE id = 1', [secret]);
        // Counting per inserted row would rewrite the account row a million times: count once at the end.
        await client.query('ALTER TABLE websites DISABLE TRIGGER websites_count');
        const readSource = sqliteReader(source);
        for (const { name } of TABLES) {
          for await (const batch of rowsOf(readSource, name, batchSize)) {
            await client.query(INSERT[name], columnArrays(name, batch));
          }
        }
        await client.query('ALTER TABLE websites ENABLE TRIGGER websites_count');
        await client.query(`UPDATE accounts a SET website_count = c.n
          FROM (SELECT account_id, count(*)::int AS n FROM websites GROUP BY account_id) c WHERE a.id = c.account_id`);
        // Running replicas key their page anchors to these counters (store/postgres/deep-pages.ts): after a --replace
        // copy, account ids are reused, so the counters start where no replica has seen them.
        await client.query(`UPDATE accounts SET website_version = floor(random() * 1e15)::bigint,
          website_deletes = floor(random() * 1e15)::bigint`);
        const nextWebsiteId = await advanceSequences(client, source);

        const sent = await canonicalChecksum((table, afterId) => readSource(table, afterId, batchSize), secret);
        const stored = await canonicalChecksum(
          (table, afterId) => postgresReader(client)(table, afterId, batchSize),
          (await client.query<{ secret: Buffer }>('SELECT secret FROM server_secret WHERE id = 1')).rows[0]!.secret,
        );
        for (const { name } of TABLES) {
          if (sent.counts[name] !== stored.counts[name]) {
            throw new ServerSetupError(
              `verification failed: ${name} has ${sent.counts[name]} row(s) in ${from} but ${stored.counts[name]} in PostgreSQL; nothing was copied`,
            );
          }
        }
        if (sent.checksum !== stored.checksum) {
          throw new ServerSetupError(
            'verification failed: the rows read back from PostgreSQL differ from the file ' +
              `(checksum ${sent.checksum.slice(0, 16)} vs ${stored.checksum.slice(0, 16)}); nothing was copied`,
          );
        }
        await client.query('COMMIT');
        return { counts: sent.counts, checksum: sent.checksum, nextWebsiteId };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        if (error instanceof ServerSetupError) throw error;
        throw new ServerSetupError(`copy to ${redactedUrl(to)} failed, nothing was copied: ${oneLine(error)}`);
      } finally {
        if (source.inTransaction) source.exec('COMMIT');
      }
    } finally {
      client.release();
      await pool.end();
    }
  } finally {
    source.close();
  }
}

/**
 * Identity sequences continue after the copied ids. SQLite's AUTOINCREMENT never reuses
 * the id of a deleted website (sqlite_sequence), so neither does PostgreSQL after the copy.
 */
async function advanceSequences(client: pg.PoolClient, source: Database.Database): Promise<number> {
  const used = (source.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'websites'").pluck().get() ?? 0) as number;
  let nextWebsiteId = 1;
  for (const { name } of TABLES) {
    const { rows } = await client.query<{ max: number }>(`SELECT coalesce(max(id), 0)::int AS max FROM ${name}`);
    const last = Math.max(rows[0]!.max, name === 'websites' ? used : 0);
    // setval(seq, n, true): the next id is n + 1; setval(seq, 1, false): the next id is 1.
    await client.query(`SELECT setval(pg_get_serial_sequence('${name}', 'id'), $1, $2)`, [Math.max(last, 1), last > 0]);
    if (name === 'websites') nextWebsiteId = last + 1;
  }
  return nextWebsiteId;
}
