/**
 * What a runner does around a step: runs a process (both streams into one log),
 * reads the `name=value` files a step writes (GITHUB_OUTPUT, GITHUB_ENV), and
 * matches the file patterns of artifact paths.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export function exec(command: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; out: string }>((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 1, out }));
  });
}

export /** `name=value` lines and `name<<DELIMITER` blocks, as GITHUB_OUTPUT and GITHUB_ENV hold them. */
function readKeyValues(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, 'utf8').split('\n');
  const values: Record<string, string> = {};
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2] ?? '', index + 1);
      values[block[1] ?? ''] = lines.slice(index + 1, end).join('\n');
      index = end;
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return values;
}

export /** `*` in a file name pattern (the artifact paths the workflows use). */
function globMatches(pattern: string, name: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(name);
}
