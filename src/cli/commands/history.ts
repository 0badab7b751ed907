/**
 * `sitesync history DOMAIN [-f FILE]... [--journal FILE]... [--format text|json]`:
 * the website's desired settings through the commits that changed them,
 * newest first, with the applies that carried each (the applied tag, the
 * apply journals). Reads git and files only; never the service.
 */
import { Argument, type Command, Option } from '@commander-js/extra-typings';
import { siteHistory } from '../../engine/history.js';
import { renderHistoryJson, renderHistoryText } from '../../render/history.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { collect } from '../option-values.js';

export function registerHistory(program: Command, context: CommandContext): void {
  program
    .command('history')
    .description(
      "a website's desired settings through the commits that changed them, and the applies that carried each",
    )
    .addArgument(new Argument('<domain>', 'the website'))
    .option('-f, --file <path>', 'configuration file or directory; repeatable (default: websites.yaml)', collect)
    .option('--journal <file>', 'an apply journal (apply --journal) to read the applies from; repeatable', collect)
    .option('--mark-applied <tag>', 'the tag apply --mark-applied moves (default: sitesync-applied)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json'] as const).default('text'))
    .action(async (domain, options) => {
      await context.run(async () => {
        const { io } = context;
        const history = await siteHistory(
          domain,
          { files: options.file ?? [], journals: options.journal ?? [], tag: options.markApplied },
          { cwd: io.cwd, env: io.env },
        );
        io.stdout.write(options.format === 'json' ? renderHistoryJson(history) : renderHistoryText(history));
        return exitCodeFor({ kind: 'done' });
      });
    });
}
