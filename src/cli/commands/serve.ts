/**
 * `sitesync serve`: runs the reference websites service until SIGINT/SIGTERM,
 * logging one JSON line per request to stderr. `sitesync serve accounts …`
 * and `sitesync serve backup` (serve-admin.ts) manage accounts, keys and backups.
 * Keys for tests and demos come from SITESYNC_SERVE_KEYS (comma-separated).
 * The server stack (fastify, SQLite) is imported only when one of these runs, so
 * plan and apply do not pay for it in start-up time and memory.
 */
import { type Command, Option } from '@commander-js/extra-typings';
import { SitesyncError } from '../../model/errors.js';
import type { RunningServer } from '../../server/index.js';
import { LOG_LEVELS, type LogLevel } from '../../server/log-level.js';
// mode.ts has no imports: naming the modes here does not load the server stack.
import { QUIRK_MODES, type QuirksName } from '../../server/mode.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { type Io, redact } from '../io.js';
import { DEFAULT_DB, integerOption, registerAdminCommands, throwIfSetupError } from './serve-admin.js';

interface ServeOptions {
  host: string;
  port: string;
  db: string;
  quirks?: QuirksName;
  throttle: string;
  logLevel: LogLevel;
}

async function serve(options: ServeOptions, io: Io): Promise<number> {
  const port = integerOption('port', options.port, 0, 65535);
  const throttlePerMinute = integerOption('throttle', options.throttle, 0, 1_000_000);
  const { parseKeyList, startServer } = await import('../../server/index.js');
  const keys = parseKeyList(io.env.SITESYNC_SERVE_KEYS);
  // Behind a real stderr, lines go out asynchronously: a stalled reader must not stall requests.
  const writer =
    io.stderr.fd === undefined
      ? undefined
      : (await import('../../server/log-writer.js')).asyncLineWriter(io.stderr.fd, redact);
  let server: RunningServer;
  try {
    server = await startServer({
      host: options.host,
      port,
      db: options.db,
      keys,
      throttlePerMinute,
      log: writer ? writer.write : (line) => io.stderr.write(`${line}\n`),
      logLevel: options.logLevel,
      ...(options.quirks && { quirks: options.quirks }),
    });
  } catch (error) {
    throwIfSetupError(error);
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new SitesyncError(
      'network',
      `cannot serve on ${options.host}:${port} with database ${options.db}: ${reason}`,
    );
  }
  const mode = options.quirks ? ` (quirks: ${options.quirks})` : '';
  io.stderr.write(
    `sitesync serve: listening on ${server.url}${mode}, database ${options.db}, ${keys.length} key(s) from SITESYNC_SERVE_KEYS\n`,
  );
  await stopped(io.signal);
  await server.close();
  writer?.flush();
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
    .option('--db <path>', 'SQLite database file (":memory:" for a throwaway one)', DEFAULT_DB)
    .addOption(new Option('--quirks <name>', 'behave like a real installation').choices(QUIRK_MODES))
    .option('--throttle <n>', 'requests per minute per key (0 = off)', '60')
    .addOption(
      new Option('--log-level <level>', 'least level of request-log lines: info (all), warn (4xx+), error (5xx)')
        .choices(LOG_LEVELS)
        .default('info' as const),
    )
    .action((options) => context.run(() => serve(options, context.io)));

  registerAdminCommands(serveCommand, context);
}
