/**
 * `sitesync export [--out FILE] [--only GLOB]`: writes the live websites as a
 * canonical websites.yaml (sorted, defaults factored out, password placeholders),
 * so that `sitesync plan` on the result reports no changes. Reads only. What
 * the file cannot hold faithfully (fields the server does not return, entries
 * validate would refuse) is a `warning:` line on stderr and a comment in the
 * file; a website not held as it is live also makes the exit code 2.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type Command, Option } from '@commander-js/extra-typings';
import { EXPORT_SCHEMA_REF } from '../../config/export.js';
import { exportSites } from '../../engine/export-sites.js';
import { SitesyncError } from '../../model/errors.js';
import { countOf, printable } from '../../model/text.js';
import type { CommandContext } from '../command-context.js';
import { cliContext } from '../events.js';
import { exitCodeFor } from '../exit-code.js';
import { type Io, writeAtomically } from '../io.js';
import { globsOption, targetOption } from '../option-values.js';
import { addConnectionOptions, type ConnectionOptions, collect, readConnectionOptions } from '../shared-options.js';

export interface ExportOptions extends ConnectionOptions {
  out: string | undefined;
  /** Replace an existing --out file. */
  force?: boolean;
  only: string[];
  /** --target: export that target of websites.yaml's `targets:` (exactly one). */
  targets?: string[];
}

export function registerExport(program: Command, context: CommandContext): void {
  const command = program
    .command('export')
    .description('write the live websites as a canonical websites.yaml')
    .addOption(new Option('--out <file>', 'write to FILE instead of standard output (never over an existing file)'))
    .addOption(new Option('--force', 'with --out: replace an existing file'))
    .addOption(new Option('--only <glob>', 'only these domains (repeatable)').argParser(collect))
    .addOption(targetOption());
  addConnectionOptions(command).action(async (raw) => {
    await context.run(async () =>
      runExport(
        {
          ...readConnectionOptions(raw),
          out: raw.out,
          force: raw.force === true,
          only: globsOption('--only', raw.only),
          targets: raw.target ?? [],
        },
        context.io,
      ),
    );
  });
}

export async function runExport(options: ExportOptions, io: Io): Promise<number> {
  const outPath = options.out === undefined ? undefined : resolve(io.cwd, options.out);
  // Before any request: a hand-written file (prune, manage, protect, limits) is not ours to replace.
  if (outPath !== undefined && !options.force && existsSync(outPath) && !statSync(outPath).isDirectory()) {
    throw new SitesyncError(
      'usage',
      `${options.out} already exists; export never replaces a file unless --force is given (or choose another --out)`,
    );
  }
  const schema = outPath === undefined ? undefined : schemaRefFrom(dirname(outPath), io.cwd);
  const exported = await exportSites({ ...options, schema }, cliContext(io, options.logLevel));
  for (const warning of exported.warnings) io.stderr.write(`warning: ${printable(warning)}\n`);
  if (options.out === undefined) {
    io.stdout.write(exported.text);
  } else {
    writeAtomically(outPath ?? options.out, exported.text, options.out, { replace: options.force });
    io.stderr.write(`exported ${countOf(exported.count, 'website')} to ${options.out}\n`);
  }
  if (exported.incomplete.length > 0) {
    const sites = countOf(exported.incomplete.length, 'website');
    io.stderr.write(`${sites} not held as live (see the warnings above): exit code 2\n`);
  }
  return exitCodeFor({ kind: 'exported', incomplete: exported.incomplete.length > 0 });
}

/**
 * The modeline's schema path as seen from the output file's directory: the
 * package is installed in the working directory's node_modules.
 */
function schemaRefFrom(outDir: string, cwd: string): string {
  const target = relative(outDir, join(cwd, EXPORT_SCHEMA_REF));
  return target.startsWith('.') ? target : `./${target}`;
}
