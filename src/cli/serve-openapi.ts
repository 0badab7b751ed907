/**
 * `sitesync serve openapi [--quirks NAME]`: prints the OpenAPI 3.1 document of
 * the API as `serve` (in that mode) serves it at /api/v1/openapi.json, for code
 * generators and API tools that read a file. Needs no database.
 */
import type { Command } from '@commander-js/extra-typings';
import type { QuirksName } from '../server/http/mode.js';
import type { CommandContext } from './command-context.js';
import { exitCodeFor } from './exit-code.js';

export function registerOpenApi(serveCommand: Command, context: CommandContext): void {
  serveCommand
    .command('openapi')
    .description('Print the OpenAPI 3.1 document of the served API (add --quirks NAME for that mode).')
    .addHelpText('after', '\nOption of serve that applies here:\n  --quirks <name>      the document of that mode\n')
    // `--quirks` belongs to `serve`: commander reads a parent's options after its subcommands too.
    .action(() =>
      context.run(async () => {
        const quirks = (serveCommand.opts() as { quirks?: QuirksName }).quirks;
        const { openApiDocument } = await import('../server/http/openapi.js');
        context.io.stdout.write(`${JSON.stringify(openApiDocument(quirks ?? 'normal'), null, 2)}\n`);
        return exitCodeFor({ kind: 'done' });
      }),
    );
}
