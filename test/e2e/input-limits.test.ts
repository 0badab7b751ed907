/**
 * Issue 16 item 14: every configuration input is read with a bound, whatever
 * its kind (a character device, a pipe, a FIFO), and the read gives way to
 * SIGTERM. Through the built CLI, as a child process.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, test } from 'vitest';
import { MAX_FILE_BYTES } from '../../src/config/files.js';
import { MAX_PLAN_FILE_BYTES } from '../../src/engine/apply-steps.js';
import { tempDir, tempDirWith } from '../helpers/temp.js';
import { type BuiltCli, builtCli, type RunOptions, runCli } from './built-cli.js';

const VALID = 'version: 1\nwebsites:\n  - domain: a.example.com\n';

let cli: BuiltCli;
beforeAll(async () => {
  cli = await builtCli();
}, 120_000);

/** True once process `pid` holds `path` open (`open`), or no longer holds it (condition polling, not a timed wait). */
async function whenOpened(pid: number, path: string, open = true): Promise<void> {
  for (;;) {
    const fds = readdirSync(`/proc/${pid}/fd`, { withFileTypes: false });
    if (fds.some((fd) => safeReadlink(`/proc/${pid}/fd/${fd}`) === path) === open) return;
    await sleep(20);
  }
}

function safeReadlink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

describe('validate -f reads every kind of input within the size limit', () => {
  test('/dev/zero stops at the limit with one clear message', async () => {
    const run = await runCli(cli, ['validate', '-f', '/dev/zero'], { cwd: tempDir('input'), env: {} });
    expect(run.code).toBe(1);
    expect(run.err + run.out).toContain(`/dev/zero: the input is larger than the limit of ${MAX_FILE_BYTES} bytes`);
  });

  test('standard input over the limit is refused, through /dev/stdin and through -f -', async () => {
    const input = Buffer.alloc(MAX_FILE_BYTES + 1024 * 1024, 0x23); // '#': one long comment
    for (const [arg, shown] of [
      ['/dev/stdin', '/dev/stdin'],
      ['-', 'stdin'],
    ]) {
      const run = await runCli(cli, ['validate', '-f', arg!], { cwd: tempDir('input'), env: {}, input });
      expect(run.code).toBe(1);
      expect(run.out).toContain(`${shown}: the input is larger than the limit of ${MAX_FILE_BYTES} bytes`);
    }
  });

  test('-f - reads the configuration from standard input', async () => {
    const run = await runCli(cli, ['validate', '-f', '-'], { cwd: tempDir('input'), env: {}, input: VALID });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(run.out).toContain('1 website');
  });

  test('a FIFO with no writer gives way to SIGTERM (exit 143)', async () => {
    const dir = tempDir('input');
    await expectFifoGivesWayToSigterm(dir, 'websites.yaml', (fifo) => ['validate', '-f', fifo], {});
  }, 30_000);

  // Issue 23 item 13: checking 100,000 unknown keys took minutes and SIGTERM was honoured only at its end (exit 1).
  test('SIGTERM while 100,000 unknown keys are checked ends the run (exit 143, nothing printed)', async () => {
    const dir = tempDir('input');
    const fifo = join(dir, 'websites.yaml');
    execFileSync('mkfifo', [fifo]);
    const keys = Array.from({ length: 100_000 }, (_, i) => `not_a_field_${i}: 1\n`).join('');
    const control: NonNullable<RunOptions['control']> = {};
    const running = runCli(cli, ['validate', '-f', fifo], { cwd: dir, env: {}, control });
    try {
      const writer = createWriteStream(fifo);
      writer.end(`version: 1\n${keys}websites:\n  - domain: a.example.com\n`);
      await finished(writer);
      // The event: the CLI has read the whole file and closed it, so it is parsing and checking now.
      await whenOpened(control.pid!, fifo, false);
      control.signal!('SIGTERM');
      const run = await running;
      expect(run.err).toBe('error: interrupted while checking the configuration\n');
      expect(run.out).toBe('');
      expect(run.code).toBe(143);
    } finally {
      control.signal?.('SIGKILL');
    }
  }, 60_000);
});

// The saved plan is an input too (issue 16 item 14: every input is read bounded and gives way to signals).
describe('apply PLANFILE reads the plan within a size limit', () => {
  const env = { SITESYNC_API_KEY: 'input-limits-key-0123456789', SITESYNC_URL: 'http://127.0.0.1:9' };

  test('/dev/zero as the plan file stops at the limit with one clear message', async () => {
    const dir = tempDirWith('input', { 'websites.yaml': VALID });
    const run = await runCli(cli, ['apply', '/dev/zero'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.err).toBe(`error: /dev/zero: the plan file is larger than the limit of ${MAX_PLAN_FILE_BYTES} bytes\n`);
  });

  test('a FIFO with no writer as the plan file gives way to SIGTERM (exit 143)', async () => {
    const dir = tempDirWith('input', { 'websites.yaml': VALID });
    await expectFifoGivesWayToSigterm(dir, 'plan.json', (fifo) => ['apply', fifo], env);
  }, 30_000);
});

/** Runs the CLI reading `name`, a FIFO nobody writes to, and expects SIGTERM to end it with exit 143. */
async function expectFifoGivesWayToSigterm(
  dir: string,
  name: string,
  argv: (fifo: string) => string[],
  env: Record<string, string>,
): Promise<void> {
  const fifo = join(dir, name);
  execFileSync('mkfifo', [fifo]);
  const control: NonNullable<RunOptions['control']> = {};
  const running = runCli(cli, argv(fifo), { cwd: dir, env, control });
  try {
    await whenOpened(control.pid!, fifo);
    control.signal!('SIGTERM');
    const run = await running;
    expect(run.signal).toBeNull();
    expect(run.code).toBe(143);
  } finally {
    control.signal?.('SIGKILL');
  }
}
