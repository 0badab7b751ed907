/**
 * `sitesync watch`: checks every target each --interval within a request
 * budget, serves /metrics and /status, alerts on transitions and, when asked,
 * heals (docs/watch.md). Thin: flags → src/watch → exit code. SIGTERM (the
 * Io's signal) finishes the step in flight and exits 0; SIGHUP reloads.
 */
import { resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { systemClock } from '../../api/clock.js';
import { createLogger, type Level, startWatch } from '../../watch/index.js';
import { WATCH_DEFAULTS, type WatchFlags, watchSettings } from '../../watch/options.js';
import type { CommandContext } from '../command-context.js';
import { EXIT } from '../exit-code.js';
import type { Io } from '../io.js';
import { openJournalFor } from '../journal-file.js';
import { targetOption } from '../option-values.js';
import { collect } from '../shared-options.js';

const repeatable = (flags: string, description: string) => new Option(flags, description).argParser(collect);

export function registerWatch(program: Command, context: CommandContext): void {
  program
    .command('watch')
    .description('check the targets continuously: metrics, alerts on drift, optional self-heal')
    .addOption(repeatable('-f, --file <path>', 'configuration file or directory (repeatable; default websites.yaml)'))
    .addOption(targetOption())
    .addOption(new Option('--url <url>', 'base URL of the service (without targets:)'))
    .addOption(new Option('--api-key-file <path>', 'file holding the API key (default: SITESYNC_API_KEY)'))
    .addOption(new Option('--insecure-http', 'allow a plain http:// URL that is not loopback'))
    .addOption(new Option('--interval <duration>', 'time between checks of a target').default(WATCH_DEFAULTS.interval))
    .addOption(
      new Option('--budget <n/min>', 'requests a minute per service, retries included').default(WATCH_DEFAULTS.budget),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `checks at once, each on another service (default ${WATCH_DEFAULTS.concurrency})`,
      ),
    )
    .addOption(
      new Option('--metrics-addr <host:port>', 'serve the status page, /metrics, /healthz, /readyz and /status here'),
    )
    .addOption(
      new Option('--status-token-env <name>', 'environment variable holding the token the page and /status need'),
    )
    .addOption(new Option('--public-url <url>', "the status page's URL as people reach it: alerts link to it"))
    .addOption(repeatable('--webhook-env <name>', 'environment variable holding a webhook URL (repeatable)'))
    .addOption(
      new Option(
        '--coordination-env <name>',
        'environment variable holding a PostgreSQL URL: replicas share the targets',
      ),
    )
    .addOption(
      new Option('--replica-name <name>', 'this replica among the others (default: host, pid and a random part)'),
    )
    .addOption(
      new Option('--renotify <duration>', 'repeat an alert that persists this long').default(WATCH_DEFAULTS.renotify),
    )
    .addOption(new Option('--self-heal <classes>', 'apply changes of these classes: drift, pending or all'))
    .addOption(new Option('--max-heal <n>', `at most N changes a cycle per target (default ${WATCH_DEFAULTS.maxHeal})`))
    .addOption(
      new Option(
        '--heal-failures <n>',
        `stop healing after N failed heals in a row (default ${WATCH_DEFAULTS.healFailures})`,
      ),
    )
    .addOption(repeatable('--window <spec>', 'heal only inside, e.g. "Mon-Fri 09:00-17:00 Europe/Berlin" (repeatable)'))
    .addOption(repeatable('--allow-delete <domain>', 'self-heal may delete this exact domain (repeatable)'))
    .addOption(new Option('--journal <file>', 'append every healing to this JSON-lines file'))
    .addOption(new Option('--baseline <ref>', 'git revision last applied (default: the tag sitesync-applied)'))
    .addOption(new Option('--no-baseline', 'no baseline: every difference is drift'))
    .addOption(new Option('--git-pull', 'fetch the branch and the applied tag, and fast-forward, before each cycle'))
    .addOption(new Option('--git-remote <name>', 'with --git-pull').default('origin'))
    .addOption(new Option('--git-branch <name>', 'with --git-pull (default: the branch checked out)'))
    .addOption(new Option('--log-format <format>', 'text or json').choices(['text', 'json']).default('text'))
    .addOption(
      new Option('--log-level <level>', 'error, warn, info or debug')
        .choices(['error', 'warn', 'info', 'debug'])
        .default('info'),
    )
    .action(async (flags) => {
      await context.runService((io) => runWatch(flags as WatchFlags, io));
    });
}

/** `onHangup` subscribes to SIGHUP (tests pass their own). */
export async function runWatch(
  flags: WatchFlags,
  io: Io,
  onHangup: (reload: () => void) => () => void = processHangup,
): Promise<number> {
  const log = createLogger({
    format: flags.logFormat === 'json' ? 'json' : 'text',
    level: flags.logLevel as Level,
    write: (line) => io.stderr.write(line),
    now: Date.now,
  });
  const settings = watchSettings(flags, io, log);
  const journal = flags.journal === undefined ? undefined : openJournalFor(io, resolve(io.cwd, flags.journal));
  const watch = await startWatch({ ...settings, journal, clock: systemClock, now: Date.now });
  const stop = () => watch.watcher.stop();
  io.signal?.addEventListener('abort', stop, { once: true });
  const unsubscribe = onHangup(() => watch.watcher.reload());
  if (watch.url !== undefined)
    log('info', 'serving the status page, /metrics, /healthz, /readyz and /status', { url: watch.url });
  try {
    await watch.run();
  } finally {
    unsubscribe();
    io.signal?.removeEventListener('abort', stop);
    await watch.close();
    journal?.close();
  }
  log('info', 'stopped');
  return EXIT.ok;
}

function processHangup(reload: () => void): () => void {
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
