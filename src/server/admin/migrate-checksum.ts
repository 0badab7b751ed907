/**
 * The canonical form of the copied rows, read the same way from SQLite and from
 * PostgreSQL: per table, in id order, each row as a JSON array of its columns
 * (booleans as 0/1, NULL as null), hashed with sha256; the server secret is
 * hashed in too. Equal checksums mean equal data, whatever each engine's types.
 */
import { createHash } from 'node:crypto';

export type TableName = 'accounts' | 'api_keys' | 'revoked_keys' | 'websites';

/** The copied tables in copy order (parents first) and their columns (same names on both engines; `id` first). */
export const TABLES: readonly { name: TableName; columns: readonly string[] }[] = [
  {
    name: 'accounts',
    columns: ['id', 'name', 'website_limit', 'api_access', 'admin', 'created_at'],
  },
  {
    name: 'api_keys',
    columns: ['id', 'account_id', 'key_hash', 'source', 'prefix', 'created_at'],
  },
  {
    name: 'revoked_keys',
    columns: ['id', 'key_hash', 'revoked_at'],
  },
  {
    name: 'websites',
    columns: [
      'id',
      'account_id',
      'domain',
      'privacy',
      'password_hash',
      'email',
      'exclude_bots',
      'exclude_params',
      'exclude_ips',
      'favorited_at',
      'created_at',
      'updated_at',
    ],
  },
];

/** The rows of a table after `afterId`, in id order, as arrays in TABLES' column order; [] when done. */
export type ReadRows = (table: TableName, afterId: number) => Promise<unknown[][]>;

const canonical = (value: unknown): unknown => (value === true ? 1 : value === false ? 0 : value);

export async function canonicalChecksum(
  read: ReadRows,
  secret: Buffer,
): Promise<{ counts: Record<TableName, number>; checksum: string }> {
  const hash = createHash('sha256');
  hash.update(`secret ${createHash('sha256').update(secret).digest('hex')}\n`);
  const counts = {} as Record<TableName, number>;
  for (const { name } of TABLES) {
    hash.update(`table ${name}\n`);
    counts[name] = 0;
    let afterId = 0;
    for (;;) {
      const rows = await read(name, afterId);
      if (rows.length === 0) break;
      for (const row of rows) hash.update(`${JSON.stringify(row.map(canonical))}\n`);
      counts[name] += rows.length;
      afterId = rows[rows.length - 1]![0] as number;
    }
  }
  return { counts, checksum: hash.digest('hex') };
}
