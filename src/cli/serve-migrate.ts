/**
 * `sitesync serve migrate-data --from FILE.db --to postgres://…`: moves a
 * reference server's state from SQLite to PostgreSQL (server/admin/migrate-data.ts).
 * Output names the target without its password.
 */
import type { Command } from '@commander-js/extra-typings';
import { SitesyncError } from '../model/errors.js';
import type { CommandContext } from './command-context.js';
import { exitCodeFor } from './exit-code.js';
import type { Io } from './io.js';
import { shownDb, throwIfSetupError, warnIfPasswordInArgv } from './serve-db.js';
import { importServer } from './server-modules.js';

async function migrate(options: { from: string; to: string; replace?: true }, io: Io): Promise<number> {
  const { isPostgresUrl } = await importServer(() => import('../server/store/postgres/store.js'));
  if (!isPostgresUrl(options.to)) {
    throw new SitesyncError('usage', '--to must be a postgres:// (or postgresql://) URL');
  }
  if (options.from === ':memory:' || isPostgresUrl(options.from)) {
    throw new SitesyncError('usage', '--from must be an SQLite database file');
  }
  warnIfPasswordInArgv(options.to, '--to', io);
  const { migrateData } = await importServer(() => import('../server/admin/migrate-data.js'));
  io.stderr.write(`copying ${options.from} to ${shownDb(options.to)} in one transaction…\n`);
  try {
    const { counts, checksum, nextWebsiteId } = await migrateData(options.from, options.to, {
      ...(options.replace && { replace: true }),
    });
    io.stderr.write(
      `copied ${counts.accounts} account(s), ${counts.api_keys} key(s) and ${counts.websites} website(s), ids kept ` +
        (counts.revoked_keys > 0 ? `(with ${counts.revoked_keys} revoked key(s), still refused) ` : '') +
        `(next website id ${nextWebsiteId}), with the key secret; verified: counts and checksum ` +
        `sha256:${checksum.slice(0, 16)} equal on both sides\n`,
    );
    return exitCodeFor({ kind: 'done' });
  } catch (error) {
    throwIfSetupError(error);
    throw error;
  }
}

export function registerMigrateData(serveCommand: Command, context: CommandContext): void {
  serveCommand
    .command('migrate-data')
    .description('Copy accounts, keys (and their secret) and websites from an SQLite file into PostgreSQL, ids kept.')
    .requiredOption('--from <file>', 'the SQLite database file (its <file>.secret must be beside it)')
    .requiredOption(
      '--to <url>',
      'postgres://user@host:port/db (its password in PGPASSWORD or ~/.pgpass, not in the URL)',
    )
    .option('--replace', 'delete what the target holds first (refused otherwise when not empty)')
    .action((options) => context.run(() => migrate(options, context.io)));
}
