// The request log can be turned down (--log-level), and a stderr nobody reads
// (a full pipe) never stalls the server.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { LogLevel } from '../../src/server/index.js';
import { request, startTestServer } from '../helpers/server.js';
import { useTestDatabase } from '../helpers/test-database.js';

const KEY = 'request-log-key-0123456789';
const ROOT = resolve(import.meta.dirname, '../..');

async function statusesLogged(logLevel: LogLevel): Promise<number[]> {
  const lines: string[] = [];
  const server = await startTestServer({ logLevel, log: (line) => lines.push(line) });
  await request(server.url, 'GET', '/api/v1/websites', { key: server.key }); // 200
  await request(server.url, 'GET', '/api/v1/websites', { key: 'not-a-key-0123456789' }); // 401
  await request(server.url, 'GET', '/api/v1/websites/999', { key: server.key }); // 404
  await server.close();
  return lines.map((line) => JSON.parse(line).status);
}

describe('request log levels', () => {
  it.each([
    ['info', [200, 401, 404]],
    ['warn', [401, 404]],
    ['error', []],
    ['silent', []],
  ] as const)('--log-level %s logs %j', async (level, statuses) => {
    expect(await statusesLogged(level)).toEqual(statuses);
  });

  it('refuses an unknown level in one line', async () => {
    const io = captureIo();
    expect(await main(['serve', '--db', ':memory:', '--log-level', 'debug'], io)).toBe(1);
    expect(io.err()).toContain("option '--log-level <level>' argument 'debug' is invalid");
  });
});

describe('a stderr nobody reads', () => {
  const database = useTestDatabase('request-log');
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
  });

  it('does not stall requests: the log waits, not the server', async () => {
    const script = `
      const { main } = await import('./src/cli/main.ts');
      const { processIo } = await import('./src/cli/process-io.ts');
      const controller = new AbortController();
      process.on('SIGTERM', () => controller.abort());
      process.exitCode = await main(process.argv.slice(1), processIo(controller.signal));`;
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
        'serve',
        '--port',
        '0',
        '--db',
        database().db,
        '--throttle',
        '0',
      ],
      { cwd: ROOT, env: { ...process.env, SITESYNC_SERVE_KEYS: KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const stderr = child.stderr!;
    const url = await new Promise<string>((done, fail) => {
      let seen = '';
      stderr.on('data', (chunk) => {
        seen += chunk;
        const match = /listening on (\S+?),/.exec(seen);
        if (match) {
          stderr.pause(); // from now on nobody reads: the pipe (64 KiB) fills up
          stderr.removeAllListeners('data');
          done(match[1]!);
        }
      });
      child!.on('exit', () => fail(new Error(`serve exited: ${seen}`)));
    });
    // ~400 KiB of log lines (the path is logged), far more than the pipe holds.
    const longPath = `/api/v1/${'x'.repeat(4000)}`;
    for (let i = 0; i < 100; i++) {
      expect((await request(url, 'GET', longPath, { key: KEY })).status).toBe(404);
    }
    expect((await request(url, 'GET', '/api/v1/websites', { key: KEY })).status).toBe(200);
  });
});
