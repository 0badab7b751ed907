/**
 * Running `sitesync apply` (and friends) in-process against a test server:
 * a temporary directory with websites.yaml, the key and passwords in the
 * environment, and every output kept so a test can scan it for secrets.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CapturedIo, captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { TestServer } from '../helpers/server.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

export interface Workspace {
  dir: string;
  env: Record<string, string>;
  /** Every output of every run so far. */
  outputs: string[];
  write(name: string, text: string): string;
  run(
    argv: string[],
    io?: Partial<Pick<CapturedIo, 'prompt' | 'signal'>> & { tty?: boolean; unredacted?: boolean },
  ): Promise<Run>;
}

export function workspace(server: TestServer, env: Record<string, string> = {}): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'sitesync-apply-'));
  const fullEnv = { SITESYNC_API_KEY: server.key, SITESYNC_URL: server.url, ...env };
  const outputs: string[] = [];
  return {
    dir,
    env: fullEnv,
    outputs,
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    async run(argv, extra = {}) {
      const tty = extra.tty ?? false;
      const io = extra.unredacted ? rawIo(fullEnv, dir, tty) : captureIo({ env: fullEnv, cwd: dir, tty });
      if (extra.prompt) io.prompt = extra.prompt;
      if (extra.signal) io.signal = extra.signal;
      // No client-side pacing against the unthrottled test server.
      const paced = (argv[0] === 'apply' || argv[0] === 'plan') && !argv.includes('--rate-limit');
      const code = await main(paced ? [...argv, '--rate-limit', '1000000'] : argv, io);
      outputs.push(io.out(), io.err());
      return { code, out: io.out(), err: io.err() };
    },
  };
}

/** websites.yaml text for a list of domains with optional extra YAML per site. */
export function config(sites: Record<string, string>, top = ''): string {
  const entries = Object.entries(sites).map(([domain, extra]) => `  - domain: ${domain}\n${extra}`);
  return `version: 1\n${top}websites:\n${entries.join('')}`;
}

/**
 * Like captureIo, but without the last-line redaction that a real terminal
 * gets: a secret test sees what sitesync itself wrote.
 */
function rawIo(env: Record<string, string>, cwd: string, tty: boolean): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: {
      write: (text) => {
        out += text;
      },
      isTTY: tty,
    },
    stderr: {
      write: (text) => {
        err += text;
      },
      isTTY: tty,
    },
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
