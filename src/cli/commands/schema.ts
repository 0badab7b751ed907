/**
 * `sitesync schema`: prints the published JSON Schema of websites.yaml (for
 * editors and other tools), exactly as shipped in schemas/.
 */
import type { Command } from '@commander-js/extra-typings';
import { schemaText } from '../../config/index.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';

export function registerSchema(program: Command, context: CommandContext): void {
  program
    .command('schema')
    .description('print the JSON Schema of websites.yaml')
    .action(async () => {
      await context.run(async () => {
        context.io.stdout.write(schemaText());
        return exitCodeFor({ kind: 'done' });
      });
    });
}
