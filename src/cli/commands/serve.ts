/**
 * `sitesync serve`: runs the reference websites service until SIGINT/SIGTERM,
 * logging one JSON line per request to stderr. `sitesync serve accounts create`
 * adds an account to a database and prints its new API key, once.
 * Keys for tests and demos come from SITESYNC_SERVE_KEYS (comma-separated).
 * The server stack (fastify, SQLite) is imported only when one of these runs, so
 * plan and apply do not pay for it in start-up time and memory.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { SitesyncError } from '../../model/errors.js';
import type { RunningServer } from '../../server/index.js';
// mode.ts has no imports: naming the modes here does not load the server stack.
import { QUIRK_MODES, type QuirksName } from '../../server/mode.js';
import { EXIT, type Io } from '../io.js';
import type { CommandContext } from '../main.js';

const DEFAULT_DB = './sitesync.db';

function integerOption(name: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new SitesyncError('usage', `--${name} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return Number(text);
}

interface ServeOptions {
  host: string;
  port: string;
  db: string;
  quirks?: QuirksName;
  throttle: string;
  authFailures: string;
  trustProxy?: true;
  publicUrl?: string;
  requestTimeout: string;
  shutdownGrace: string;
}

async function serve(options: ServeOptions, io: Io): Promise<number> {
  const port = integerOption('port', options.port, 0, 65535);
  const throttlePerMinute = integerOption('throttle', options.throttle, 0, 1_000_000);
  const failedAuthPerMinute = integerOption('auth-failures', options.authFailures, 0, 1_000_000);
  const requestTimeoutMs = integerOption('request-timeout', options.requestTimeout, 1, 3600) * 1000;
  const shutdownGraceMs = integerOption('shutdown-grace', options.shutdownGrace, 0, 3600) * 1000;
  const { parseKeyList, publicBase, startServer } = await import('../../server/index.js');
  if (options.publicUrl !== undefined) {
    try {
      publicBase(options.publicUrl);
    } catch (error) {
      throw new SitesyncError('usage', `--public-url: ${(error as Error).message}`);
    }
  }
  const keys = parseKeyList(io.env.SITESYNC_SERVE_KEYS);
  let server: RunningServer;
  try {
    server = await startServer({
      host: options.host,
      port,
      db: options.db,
      keys,
      throttlePerMinute,
      failedAuthPerMinute,
      requestTimeoutMs,
      shutdownGraceMs,
      ...(options.trustProxy && { trustProxy: true }),
      ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
      log: (line) => io.stderr.write(`${line}\n`),
      ...(options.quirks && { quirks: options.quirks }),
    });
  } catch (error) {
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new SitesyncError(
      'network',
      `cannot serve on ${options.host}:${port} with database ${options.db}: ${reason}`,
    );
  }
  const mode = options.quirks ? ` (quirks: ${options.quirks})` : '';
  const links = options.publicUrl === undefined ? '' : `, links to ${options.publicUrl}`;
  io.stderr.write(
    `sitesync serve: listening on ${server.url}${mode}, database ${options.db}${links}, ${keys.length} key(s) from SITESYNC_SERVE_KEYS\n`,
  );
  await stopped(io.signal);
  await server.close();
  io.stderr.write('sitesync serve: stopped\n');
  return EXIT.ok;
}

/** Resolves when the signal aborts (SIGINT/SIGTERM); never without one. */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}

interface CreateAccountOptions {
  db: string;
  websiteLimit?: string;
  apiAccess: boolean;
}

async function createAccount(name: string, options: CreateAccountOptions, io: Io): Promise<number> {
  if (name.trim() === '') throw new SitesyncError('usage', 'the account name must not be empty');
  if (options.db === ':memory:') {
    throw new SitesyncError(
      'usage',
      'accounts create needs a database file (--db <path>): in ":memory:" the account and its key would be lost at once',
    );
  }
  const websiteLimit =
    options.websiteLimit === undefined ? null : integerOption('website-limit', options.websiteLimit, 0, 1_000_000_000);
  const { createAccountWithKey, openSqliteStore } = await import('../../server/index.js');
  const store = openSqliteStore(options.db);
  try {
    if (store.findAccountByName(name)) {
      throw new SitesyncError('usage', `account "${name}" already exists in ${options.db}`);
    }
    const { account, key } = createAccountWithKey(store, name, { websiteLimit, apiAccess: options.apiAccess });
    const limit = websiteLimit === null ? 'unlimited websites' : `at most ${websiteLimit} websites`;
    const access = options.apiAccess ? '' : ', no API access';
    io.stderr.write(`created account "${name}" (id ${account.id}, ${limit}${access}) in ${options.db}\n`);
    io.stderr.write('its API key, shown only this once:\n');
    io.stdout.write(`${key}\n`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}

export function registerServe(program: Command, context: CommandContext): void {
  const serveCommand = program
    .command('serve')
    .description('run the reference websites service (keys from SITESYNC_SERVE_KEYS=key1,key2)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
    .option('--db <path>', 'SQLite database file (":memory:" for a throwaway one)', DEFAULT_DB)
    .addOption(new Option('--quirks <name>', 'behave like a real installation').choices(QUIRK_MODES))
    .option('--throttle <n>', 'requests per minute per key (0 = off)', '60')
    .option('--auth-failures <n>', 'failed authentications per minute per client IP before 429 (0 = off)', '30')
    .option('--trust-proxy', 'take client IP and scheme from X-Forwarded-* (one proxy in front)')
    .option('--public-url <url>', 'URL clients reach the server at, for page links (default: the listening address)')
    .option('--request-timeout <seconds>', 'cut off a request not received in full by then (408)', '30')
    .option('--shutdown-grace <seconds>', 'on SIGTERM, wait this long for in-flight requests', '10')
    .action((options) => context.run(() => serve(options, context.io)));

  serveCommand
    .command('accounts')
    .description('Manage the accounts of a reference-server database.')
    .command('create')
    .description('Create an account and print its new API key (shown once).')
    .argument('<name>', 'account name (unique, not empty)')
    .option('--website-limit <n>', 'maximum number of websites (default unlimited)')
    .option('--no-api-access', 'the account may not use the API (403)')
    // `--db` belongs to `serve`: commander reads a parent's options after its subcommands too,
    // so declaring it here would never receive a value. The help says it applies.
    .addHelpText(
      'after',
      `\nOption of serve that applies here (before or after "accounts create"):\n  --db <path>          SQLite database file to add the account to (default: "${DEFAULT_DB}"; not ":memory:")\n`,
    )
    .action((name, options) =>
      context.run(async () => createAccount(name, { ...options, db: serveCommand.opts().db }, context.io)),
    );
}
