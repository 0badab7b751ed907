/**
 * `sitesync serve`: runs the reference websites service until SIGINT/SIGTERM,
 * logging one JSON line per request to stderr. `sitesync serve accounts …`
 * and `sitesync serve backup` (serve-admin.ts) manage accounts, keys and backups.
 * Keys for tests and demos come from SITESYNC_SERVE_KEYS (comma-separated).
 * The server stack (fastify, SQLite) is imported only when one of these runs: plan and apply do not pay for it.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { SitesyncError } from '../../model/errors.js';
import { LOG_LEVELS, type LogLevel } from '../../server/http/log-level.js';
// mode.ts has no imports: naming the modes here does not load the server stack.
import { QUIRK_MODES, type QuirksName } from '../../server/http/mode.js';
import type { RunningServer } from '../../server/index.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import type { Io } from '../io.js';
import { registerAdminCommands } from '../serve-admin.js';
import { DEFAULT_DB, serveDb, throwIfSetupError } from '../serve-db.js';
import { registerMigrateData } from '../serve-migrate.js';
import { registerOpenApi } from '../serve-openapi.js';
import { listeningLine, lockWaitLine, requestLogWriter, serveNumbers, startFailure } from '../serve-settings.js';
import { importServer } from '../server-modules.js';

interface ServeOptions {
  host: string;
  port: string;
  socket?: string;
  db?: string;
  dbFile?: string;
  quirks?: QuirksName;
  throttle: string;
  logLevel: LogLevel;
  authFailures: string;
  trustProxy?: true | string;
  publicUrl?: string;
  requestTimeout: string;
  shutdownGrace: string;
  poolSize: string;
  statementTimeout: string;
  metricsAddr?: string;
}

async function serve(given: ServeOptions, io: Io): Promise<number> {
  const options = { ...given, db: serveDb(given, io) };
  const numbers = serveNumbers(options);
  const { port } = numbers;
  const { describeProvisioning, parseKeyList, publicBase, startServer } = await importServer(
    () => import('../../server/index.js'),
  );
  if (options.metricsAddr !== undefined) {
    const { parseListenAddress } = await importServer(() => import('../../server/metrics/listener.js'));
    try {
      parseListenAddress(options.metricsAddr);
    } catch (error) {
      throw new SitesyncError('usage', `--metrics-addr: ${(error as Error).message}`);
    }
  }
  if (options.publicUrl !== undefined) {
    try {
      publicBase(options.publicUrl);
    } catch (error) {
      throw new SitesyncError('usage', `--public-url: ${(error as Error).message}`);
    }
  }
  const keys = parseKeyList(io.env.SITESYNC_SERVE_KEYS);
  const writer = await requestLogWriter(io);
  let server: RunningServer;
  try {
    server = await startServer({
      host: options.host,
      ...numbers,
      ...(options.socket !== undefined && { socket: options.socket }),
      db: options.db,
      keys,
      ...(options.trustProxy !== undefined && {
        trustProxy: options.trustProxy === true ? true : options.trustProxy.split(','),
      }),
      ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
      ...(options.metricsAddr !== undefined && { metricsAddr: options.metricsAddr }),
      log: writer ? writer.write : (line) => io.stderr.write(`${line}\n`),
      logLevel: options.logLevel,
      onLockWait: () => io.stderr.write(lockWaitLine(options.db)),
      ...(options.quirks && { quirks: options.quirks }),
    });
  } catch (error) {
    throwIfSetupError(error);
    throw startFailure(error, { ...options, port });
  }
  const provisioned = describeProvisioning(server.provisioning);
  if (provisioned) io.stderr.write(`sitesync serve: ${provisioned}\n`);
  io.stderr.write(listeningLine(server, options, keys.length));
  await stopped(io.signal);
  await server.close();
  await writer?.flush();
  io.stderr.write('sitesync serve: stopped\n');
  return exitCodeFor({ kind: 'done' });
}

/** Resolves when the signal aborts (SIGINT/SIGTERM); never without one. */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}

export function registerServe(program: Command, context: CommandContext): void {
  const serveCommand = program
    .command('serve')
    .description('run the reference websites service (keys from SITESYNC_SERVE_KEYS=key1,key2)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
    .addOption(
      new Option(
        '--socket <path>',
        'listen on this Unix socket (mode 0600) instead of --host/--port, behind a proxy on this machine; needs --public-url',
      ).conflicts(['host', 'port']),
    )
    .option(
      '--db <path|url>',
      `SQLite database file (":memory:" for a throwaway one) or postgres://user@host:port/db, its password in PGPASSWORD or ~/.pgpass (default: SITESYNC_SERVE_DB, else ${DEFAULT_DB})`,
    )
    .option('--db-file <path>', 'a file holding the --db value (keeps a database URL with its password out of `ps`)')
    .option('--pool-size <n>', 'PostgreSQL: connections in the pool', '10')
    .option('--statement-timeout <seconds>', 'PostgreSQL: cancel a statement running longer', '5')
    .addOption(new Option('--quirks <name>', 'behave like a real installation').choices(QUIRK_MODES))
    .option('--throttle <n>', 'requests per minute per key (0 = off)', '60')
    .addOption(
      new Option('--log-level <level>', 'least level of request-log lines: info (all), warn (4xx+), error (5xx)')
        .choices(LOG_LEVELS)
        .default('info' as const),
    )
    .option('--auth-failures <n>', 'failed authentications per minute per client IP before 429 (0 = off)', '30')
    .option(
      '--trust-proxy [addresses]',
      'take client IP and scheme from X-Forwarded-* sent by these proxies (127.0.0.1/32,fd00::/8); bare: by one proxy in front, whoever connects',
    )
    .option('--public-url <url>', 'URL clients reach the server at, for page links (default: the listening address)')
    .option('--request-timeout <seconds>', 'cut off a request not received in full by then (408)', '30')
    .option('--shutdown-grace <seconds>', 'on SIGTERM, wait this long for in-flight requests', '10')
    .option(
      '--metrics-addr <host:port>',
      'serve Prometheus metrics at http://HOST:PORT/metrics (a separate listener; off by default)',
    )
    .action((options) => context.runService((io) => serve(options, io)));

  registerAdminCommands(serveCommand, context);
  registerMigrateData(serveCommand, context);
  registerOpenApi(serveCommand, context);
}
