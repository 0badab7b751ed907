// The GitHub apply example reads acknowledgements from the pull request's
// description: the lines it accepts become flags, and a line meant as an
// acknowledgement that it does not accept fails the job, named, instead of
// vanishing. Runs the example's own parsing lines (between its markers) in bash.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const WORKFLOW = resolve(import.meta.dirname, '../../examples/ci/github/sitesync-apply.yml');

function parsingScript(): string {
  const text = readFileSync(WORKFLOW, 'utf8');
  const begin = text.indexOf('# parse-acknowledgements: begin');
  const end = text.indexOf('# parse-acknowledgements: end');
  expect(begin).toBeGreaterThan(0);
  return text
    .slice(begin, end)
    .split('\n')
    .map((line) => line.replace(/^ {10}/, ''))
    .join('\n');
}

async function parse(description: string): Promise<{ code: number; stdout: string; flags: string }> {
  const dir = tempDir('gh-ack');
  mkdirSync(join(dir, 'reviewed'));
  writeFileSync(join(dir, 'reviewed/description'), description);
  try {
    const { stdout } = await run('bash', ['-e', '-c', parsingScript()], { cwd: dir, env: { ...process.env, pr: '7' } });
    return { code: 0, stdout, flags: readFileSync(join(dir, 'reviewed/acknowledgements'), 'utf8') };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return {
      code: failed.code,
      stdout: failed.stdout,
      flags: readFileSync(join(dir, 'reviewed/acknowledgements'), 'utf8'),
    };
  }
}

describe('examples/ci/github/sitesync-apply.yml: acknowledgement lines', () => {
  test('accepted lines become one argument per line', async () => {
    const result = await parse(
      'Retire old.\nsitesync-acknowledge: --allow-delete old.example\nsitesync-acknowledge: --max-deletes 4\n',
    );
    expect(result).toEqual({ code: 0, stdout: '', flags: '--allow-delete\nold.example\n--max-deletes\n4\n' });
  });

  test('a line that does not parse is reported and fails the step', async () => {
    const result = await parse(
      'sitesync-acknowledge: --allow-delete old.example\nsitesync-acknowledge: --force now\nsitesync-acknowledge: --allow-delete a.example b.example\n',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        '::error::#7: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N or --max-change-percent N, one per line): sitesync-acknowledge: --force now',
        '::error::#7: not an acknowledgement (expected --allow-delete DOMAIN, --max-deletes N or --max-change-percent N, one per line): sitesync-acknowledge: --allow-delete a.example b.example',
        '',
      ].join('\n'),
    );
  });
});
