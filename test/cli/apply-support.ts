/**
 * Running `sitesync apply` (and friends) in-process against a test server:
 * a temporary directory with websites.yaml, the key and passwords in the
 * environment, and every output kept so a test can scan it for secrets.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type CapturedIo, captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { ServerOptions } from '../../src/server/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

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
    io?: Partial<Pick<CapturedIo, 'prompt' | 'signal' | 'now' | 'openApi'>> & {
      tty?: boolean;
      unredacted?: boolean;
      /** Sees each stderr write as it happens: a test can react to a line (abort on a wait notice). */
      onStderr?: (text: string) => void;
    },
  ): Promise<Run>;
}

/** A workspace in a fresh temp directory (removed after the test, or the file when made in beforeAll). */
export function workspace(server: TestServer, env: Record<string, string> = {}): Workspace {
  const dir = tempDir('apply');
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
      if (extra.now) io.now = extra.now;
      if (extra.openApi) io.openApi = extra.openApi;
      const onStderr = extra.onStderr;
      if (onStderr) {
        const stderr = io.stderr;
        io.stderr = {
          isTTY: stderr.isTTY,
          write: (text) => {
            stderr.write(text);
            onStderr(text);
          },
        };
      }
      // No client-side pacing against the unthrottled test server.
      const paced = (argv[0] === 'apply' || argv[0] === 'plan') && !argv.includes('--rate-limit');
      const code = await main(paced ? [...argv, '--rate-limit', '1000000'] : argv, io);
      outputs.push(io.out(), io.err());
      return { code, out: io.out(), err: io.err() };
    },
  };
}

export interface CliFixture {
  server: TestServer;
  ws: Workspace;
}

export interface CliFixtureOptions {
  server?: ServerOptions;
  /** Extra environment (passwords) for every run. */
  env?: Record<string, string>;
  /** websites.yaml written before each test. */
  config?: string;
  /** More set-up after the file is written (an earlier apply, another websites.yaml). */
  before?: (fixture: CliFixture) => Promise<void>;
}

/**
 * The set-up most CLI tests share: before each test a fresh test server, a
 * workspace for it and websites.yaml; after it, the server is closed (the
 * workspace directory goes with the test). Read `server` and `ws` inside tests.
 */
export function useCliFixture(options: CliFixtureOptions = {}): CliFixture {
  const fixture = {} as CliFixture;
  beforeEach(async () => {
    fixture.server = await startTestServer(options.server);
    fixture.ws = workspace(fixture.server, options.env);
    if (options.config !== undefined) fixture.ws.write('websites.yaml', options.config);
    await options.before?.(fixture);
  });
  afterEach(() => fixture.server.close());
  return fixture;
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
