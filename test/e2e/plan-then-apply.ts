/**
 * A saved plan applied by the built CLI in `dir`: `plan --out plan.json`, then
 * `apply plan.json --journal journal.jsonl --parallelism 1 …args`; what the
 * apply left behind (its journal, its lock) for the test to judge.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuiltCli, type RunOptions, runCli } from './built-cli.js';

export interface JournalLine {
  event: string;
  domain?: string;
  interrupted?: boolean;
}

export async function planThenApply(
  cli: BuiltCli,
  dir: string,
  env: Record<string, string>,
  args: string[],
  options: Partial<RunOptions> = {},
) {
  const planned = await runCli(cli, ['plan', '--out', 'plan.json'], { cwd: dir, env });
  if (planned.code !== 0) throw new Error(`plan --out failed (${planned.code}): ${planned.err}`);
  const applyArgs = ['apply', 'plan.json', '--journal', 'journal.jsonl', '--parallelism', '1', ...args];
  const run = await runCli(cli, applyArgs, { cwd: dir, env, ...options });
  const path = join(dir, 'journal.jsonl');
  const journal = (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : [])
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);
  return { run, journal, locked: existsSync(join(dir, 'plan.json.lock')) };
}
