/**
 * `sitesync schema [NAME]`: prints a published JSON Schema, exactly as shipped
 * in schemas/: `websites` (websites.yaml, the default, for editors), `plan`,
 * `plan-targets`, `validate`, `apply` and `apply-targets` (the --format json
 * documents, for CI parsers; the -targets ones for a configuration with targets).
 */
import { readFileSync } from 'node:fs';
import { Argument, type Command } from '@commander-js/extra-typings';
import { schemaText } from '../../config/index.js';
import { SCHEMA_URL } from '../../config/schema.js';
import type { CommandContext } from '../command-context.js';
import { exitCodeFor } from '../exit-code.js';

const NAMES = ['websites', 'plan', 'plan-targets', 'validate', 'apply', 'apply-targets'] as const;

/**
 * Beside the websites schema, whose module knows where schemas/ is from src/, dist/ and
 * the bundle alike (this file's own depth differs between them: the bundle flattens it).
 */
function documentSchemaText(name: Exclude<(typeof NAMES)[number], 'websites'>): string {
  return readFileSync(new URL(`${name}.schema.json`, SCHEMA_URL), 'utf8');
}

export function registerSchema(program: Command, context: CommandContext): void {
  program
    .command('schema')
    .description(
      'print a JSON Schema: of websites.yaml (default), or of the plan, plan-targets, validate, apply or apply-targets JSON output',
    )
    .addArgument(new Argument('[name]', 'which schema').choices(NAMES).default('websites' as const))
    .action(async (name) => {
      await context.run(async () => {
        context.io.stdout.write(name === 'websites' ? schemaText() : documentSchemaText(name));
        return exitCodeFor({ kind: 'done' });
      });
    });
}
