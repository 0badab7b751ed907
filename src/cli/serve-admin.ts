/**
 * `sitesync serve accounts list|create|rotate-key|revoke-key|set-limit|disable-api|enable-api|set-admin`
 * and `sitesync serve backup`: accounts, keys and copies of a reference-server
 * database, safe while the server runs
 * (it reads keys from the database on every request, so a change applies to the
 * next one). Keys are printed once, when made; listings show a prefix, never a key.
 */
import type { Command } from '@commander-js/extra-typings';
import { SitesyncError } from '../model/errors.js';
import type { Account, ServerStore } from '../server/index.js';
import type { CommandContext } from './command-context.js';
import { exitCodeFor } from './exit-code.js';
import type { Io } from './io.js';
import { wholeNumberOption } from './option-values.js';
import { DEFAULT_DB, serveDb, shownDb, throwIfSetupError } from './serve-db.js';
import { importServer } from './server-modules.js';

export const integerOption = (name: string, text: string, min: number, max: number): number =>
  wholeNumberOption(`--${name}`, text, { min, max });

/** Opens the database of an accounts command (an SQLite file or a postgres:// URL); only `create` may make a new file. */
async function withStore<T>(db: string, create: boolean, work: (store: ServerStore) => Promise<T>): Promise<T> {
  if (db === ':memory:') {
    throw new SitesyncError(
      'usage',
      'accounts commands need a database file (--db <path>): in ":memory:" the change would be lost at once',
    );
  }
  const { isPostgresUrl, openPostgresStore, openSqliteStore } = await importServer(() => import('../server/index.js'));
  const postgres = isPostgresUrl(db);
  const { existsSync } = await import('node:fs');
  if (!postgres && !create && !existsSync(db)) throw new SitesyncError('usage', `no database at ${db}`);
  let store: ServerStore;
  try {
    // On PostgreSQL the schema is brought up to date like at a server's start (under the migration lock).
    store = postgres ? await openPostgresStore(db, { poolSize: 1 }) : openSqliteStore(db);
  } catch (error) {
    throwIfSetupError(error);
    throw error;
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function findAccount(store: ServerStore, name: string, db: string): Promise<Account> {
  const account = await store.findAccountByName(name);
  if (!account) throw new SitesyncError('usage', `no account "${name}" in ${shownDb(db)}`);
  return account;
}

const describeLimit = (limit: number | null) => (limit === null ? 'unlimited websites' : `at most ${limit} websites`);

async function createAccount(
  name: string,
  options: { db: string; websiteLimit?: string; apiAccess: boolean; admin?: boolean },
  io: Io,
): Promise<number> {
  const { accountNameProblem, createAccountWithKey } = await importServer(() => import('../server/admin/accounts.js'));
  const problem = accountNameProblem(name);
  if (problem) throw new SitesyncError('usage', problem);
  const websiteLimit =
    options.websiteLimit === undefined ? null : integerOption('website-limit', options.websiteLimit, 0, 1_000_000_000);
  return withStore(options.db, true, async (store) => {
    if (await store.findAccountByName(name)) {
      throw new SitesyncError('usage', `account "${name}" already exists in ${shownDb(options.db)}`);
    }
    const admin = options.admin === true;
    const { account, key } = await createAccountWithKey(store, name, {
      websiteLimit,
      apiAccess: options.apiAccess,
      admin,
    });
    const access = `${options.apiAccess ? '' : ', no API access'}${admin ? ', admin' : ''}`;
    io.stderr.write(
      `created account "${name}" (id ${account.id}, ${describeLimit(websiteLimit)}${access}) in ${shownDb(options.db)}\n`,
    );
    io.stderr.write('its API key, shown only this once:\n');
    io.stdout.write(`${key}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) => `${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd())
    .join('\n');
}

async function listAccounts(db: string, io: Io): Promise<number> {
  return withStore(db, false, async (store) => {
    const rows = [['ACCOUNT', 'NAME', 'WEBSITES', 'LIMIT', 'API', 'ROLE', 'KEY', 'PREFIX', 'CREATED', 'SOURCE']];
    for (const account of await store.listAccounts()) {
      const head = [
        String(account.id),
        account.name,
        String(account.websiteCount),
        account.websiteLimit === null ? '-' : String(account.websiteLimit),
        account.apiAccess ? 'on' : 'off',
        account.admin ? 'admin' : 'user',
      ];
      if (account.keys.length === 0) rows.push([...head, '-', '-', '-', 'no keys']);
      for (const key of account.keys) {
        rows.push([...head, String(key.id), key.prefix === '' ? '?' : `${key.prefix}…`, key.createdAt, key.source]);
      }
    }
    io.stdout.write(`${table(rows)}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function rotate(name: string, db: string, io: Io): Promise<number> {
  const { rotateKey } = await importServer(() => import('../server/admin/accounts.js'));
  return withStore(db, false, async (store) => {
    const account = await findAccount(store, name, db);
    const { key, revoked } = await rotateKey(store, account);
    io.stderr.write(`new key for account "${name}"; ${revoked} old key(s) revoked. Shown only this once:\n`);
    io.stdout.write(`${key}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function revoke(keyIdText: string, db: string, io: Io): Promise<number> {
  const keyId = integerOption('key id', keyIdText, 1, Number.MAX_SAFE_INTEGER);
  return withStore(db, false, async (store) => {
    if (!(await store.revokeKey(keyId))) throw new SitesyncError('usage', `no key ${keyId} in ${shownDb(db)}`);
    io.stderr.write(`key ${keyId} revoked: it is refused from the next request on\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function setLimit(name: string, limitText: string, db: string, io: Io): Promise<number> {
  const websiteLimit = limitText === 'unlimited' ? null : integerOption('website limit', limitText, 0, 1_000_000_000);
  return withStore(db, false, async (store) => {
    const account = await findAccount(store, name, db);
    await store.updateAccount(account.id, { websiteLimit });
    io.stderr.write(`account "${name}": ${describeLimit(websiteLimit)}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function setApiAccess(name: string, apiAccess: boolean, db: string, io: Io): Promise<number> {
  return withStore(db, false, async (store) => {
    const account = await findAccount(store, name, db);
    await store.updateAccount(account.id, { apiAccess });
    io.stderr.write(`account "${name}": API access ${apiAccess ? 'on' : 'off (every request answers 403)'}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function setAdmin(name: string, value: string, db: string, io: Io): Promise<number> {
  if (value !== 'on' && value !== 'off')
    throw new SitesyncError('usage', `set-admin ${name} ${value}: expected on or off`);
  return withStore(db, false, async (store) => {
    const account = await findAccount(store, name, db);
    await store.updateAccount(account.id, { admin: value === 'on' });
    io.stderr.write(`account "${name}": ${value === 'on' ? 'admin' : 'user'}\n`);
    return exitCodeFor({ kind: 'done' });
  });
}

async function backup(db: string, out: string, io: Io): Promise<number> {
  if (db === ':memory:') throw new SitesyncError('usage', 'backup needs a database file (--db <path>)');
  if (/^postgres(ql)?:\/\//i.test(db)) {
    // PostgreSQL has its own consistent online copy; the key secret is a table, so a dump holds it.
    throw new SitesyncError(
      'usage',
      'backup copies SQLite files; back up PostgreSQL with pg_dump (its dump includes the key secret): ' +
        'pg_dump --format=custom --file=sitesync.dump "$URL" (see docs/server.md, "Backups")',
    );
  }
  const { backupDatabase } = await importServer(() => import('../server/admin/backup.js'));
  try {
    const result = await backupDatabase(db, out);
    const secret = result.secret ? ` and its key secret to ${result.secret}` : '';
    io.stderr.write(`backed up ${db} (${result.pages} pages) to ${out}${secret}\n`);
    return exitCodeFor({ kind: 'done' });
  } catch (error) {
    throwIfSetupError(error);
    throw error;
  }
}

export function registerAdminCommands(serveCommand: Command, context: CommandContext): void {
  // As for `serve` itself: --db, else SITESYNC_SERVE_DB, else the default file.
  const db = () => serveDb(serveCommand.opts() as { db?: string; dbFile?: string }, context.io);
  serveCommand
    .command('backup')
    .description('Write a consistent copy of the database (and its key secret) while servers use it.')
    .requiredOption('--out <file>', 'the copy to write (must not exist); its secret goes to <file>.secret')
    .addHelpText(
      'after',
      `\nOption of serve that applies here:\n  --db <path>          SQLite database file to copy (default: SITESYNC_SERVE_DB, else "${DEFAULT_DB}"; PostgreSQL: pg_dump)\n`,
    )
    .action((options) => context.run(() => backup(db(), options.out, context.io)));

  const run = (work: () => Promise<number>) => context.run(work);
  const accounts = serveCommand.command('accounts').description('Manage the accounts and keys of a database.');
  // `--db` belongs to `serve`: commander reads a parent's options after its subcommands too,
  // so declaring it here would never receive a value. The help says it applies.
  const dbHelp = (verb: string) =>
    `\nOption of serve that applies here (before or after "accounts ${verb}"):\n  --db <path|url>      SQLite database file or postgres:// URL (default: SITESYNC_SERVE_DB, else "${DEFAULT_DB}"; not ":memory:")\n`;

  accounts
    .command('list')
    .description('List accounts and their keys (id, prefix, creation, source; never the key).')
    .addHelpText('after', dbHelp('list'))
    .action(() => run(() => listAccounts(db(), context.io)));
  accounts
    .command('create')
    .description('Create an account and print its new API key (shown once).')
    .argument('<name>', 'account name (unique, not empty, no control characters)')
    .option('--website-limit <n>', 'maximum number of websites (default unlimited)')
    .option('--no-api-access', 'the account may not use the API (403)')
    .option('--admin', "phpAnalytics' admin role: in quirks mode its updates may name an owner (user_id)")
    .addHelpText(
      'after',
      `\nOption of serve that applies here (before or after "accounts create"):\n  --db <path|url>      SQLite database file or postgres:// URL to add the account to (default: SITESYNC_SERVE_DB, else "${DEFAULT_DB}"; not ":memory:")\n`,
    )
    .action((name, options) => run(() => createAccount(name, { ...options, db: db() }, context.io)));
  accounts
    .command('rotate-key')
    .description("Print a new key for the account (shown once) and revoke all of the account's other keys.")
    .argument('<account>', 'account name')
    .addHelpText('after', dbHelp('rotate-key'))
    .action((name) => run(() => rotate(name, db(), context.io)));
  accounts
    .command('revoke-key')
    .description('Revoke one key (its id from "accounts list"); refused from the next request on.')
    .argument('<key-id>', 'key id')
    .addHelpText('after', dbHelp('revoke-key'))
    .action((keyId) => run(() => revoke(keyId, db(), context.io)));
  accounts
    .command('set-limit')
    .description('Set the maximum number of websites of an account.')
    .argument('<account>', 'account name')
    .argument('<limit>', 'a whole number, or "unlimited"')
    .addHelpText('after', dbHelp('set-limit'))
    .action((name, limit) => run(() => setLimit(name, limit, db(), context.io)));
  accounts
    .command('disable-api')
    .description('Refuse every API request of the account (403), keeping its keys and websites.')
    .argument('<account>', 'account name')
    .addHelpText('after', dbHelp('disable-api'))
    .action((name) => run(() => setApiAccess(name, false, db(), context.io)));
  accounts
    .command('enable-api')
    .description('Allow API requests of the account again.')
    .argument('<account>', 'account name')
    .addHelpText('after', dbHelp('enable-api'))
    .action((name) => run(() => setApiAccess(name, true, db(), context.io)));
  accounts
    .command('set-admin')
    .description("Give or take phpAnalytics' admin role (quirks mode: an admin's update may name an owner).")
    .argument('<account>', 'account name')
    .argument('<on|off>', 'on: admin; off: an ordinary user')
    .addHelpText('after', dbHelp('set-admin'))
    .action((name, value) => run(() => setAdmin(name, value, db(), context.io)));
}
