/**
 * `sitesync export [--out FILE] [--only GLOB]`: writes the live websites as a
 * canonical websites.yaml (sorted, defaults factored out, password placeholders),
 * so that `sitesync plan` on the result reports no changes. Reads only. What
 * the file cannot hold faithfully (fields the server does not return, entries
 * validate would refuse) is a `warning:` line on stderr and a comment in the file.
 */
import { resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { exportConfigWithWarnings } from '../../config/export.js';
import { matchesAny } from '../../model/glob.js';
import { countOf } from '../../model/text.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';
import { type Io, writeAtomically } from '../io.js';
import { globsOption } from '../option-values.js';
import { listLive } from '../prepare.js';
import {
  addConnectionOptions,
  type ConnectionOptions,
  collect,
  connectionOf,
  openClient,
  readConnectionOptions,
} from '../shared-options.js';

export interface ExportOptions extends ConnectionOptions {
  out: string | undefined;
  only: string[];
}

export function registerExport(program: Command, context: CommandContext): void {
  const command = program
    .command('export')
    .description('write the live websites as a canonical websites.yaml')
    .addOption(new Option('--out <file>', 'write to FILE instead of standard output'))
    .addOption(new Option('--only <glob>', 'only these domains (repeatable)').argParser(collect));
  addConnectionOptions(command).action(async (raw) => {
    await context.run(async () =>
      runExport({ ...readConnectionOptions(raw), out: raw.out, only: globsOption('--only', raw.only) }, context.io),
    );
  });
}

export async function runExport(options: ExportOptions, io: Io): Promise<number> {
  const api = openClient(options, io, connectionOf(options, io));
  try {
    const live = await listLive(api, options, io);
    const selected = options.only.length === 0 ? live : live.filter((site) => matchesAny(site.domain, options.only));
    const { text, warnings } = exportConfigWithWarnings(selected, {
      header: `Exported from ${api.url} by sitesync export.`,
    });
    for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
    if (options.out === undefined) {
      io.stdout.write(text);
    } else {
      writeAtomically(resolve(io.cwd, options.out), text, options.out);
      io.stderr.write(`exported ${countOf(selected.length, 'website')} to ${options.out}\n`);
    }
    return exitCodeFor({ kind: 'done' });
  } finally {
    await api.close();
  }
}
