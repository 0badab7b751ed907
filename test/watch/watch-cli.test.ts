/**
 * `sitesync watch` on the command line: every bad flag is one usage line and
 * exit 1 before anything starts (webhook URLs named by their variable only);
 * SIGHUP starts a cycle at once; SIGTERM finishes and exits 0; text and JSON logs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWatch } from '../../src/cli/commands/watch.js';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { insertWebsite, STORED_DEFAULTS, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CLI_FLAGS } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('sitesync watch: flags', () => {
  it.each([
    [['--self-heal', 'sometimes'], '--self-heal must be one of drift, pending, all, not "sometimes"'],
    [['--max-heal', '3'], '--max-heal needs --self-heal drift|pending|all'],
    [['--self-heal', 'drift', '--allow-delete', '*.example'], 'name one exact domain (no glob)'],
    [['--self-heal', 'drift', '--window', 'Mon-Fri 9-17'], '--window "9-17" is not a time range HH:MM-HH:MM'],
    [['--budget', '100/min'], '--budget "100/min": expected N/min with N from 1 to 60'],
    [['--interval', '5 minutes'], '--interval "5 minutes": expected a duration such as 90s, 5m or 1h30m'],
    [['--interval', '200ms'], '--interval 200ms: must be at least 1 s'],
    [['--metrics-addr', 'localhost'], '--metrics-addr "localhost": expected HOST:PORT'],
    [['--webhook-env', 'TEAM_HOOK'], '--webhook-env TEAM_HOOK: the variable does not hold an http(s) URL'],
    [['--webhook-env', 'UNSET_HOOK'], '--webhook-env UNSET_HOOK: the variable is not set'],
  ])('%j is refused: %s', async (args, message) => {
    const io = captureIo({
      env: { TEAM_HOOK: 'ftp://hooks.example/secret-token-0123456789' },
      cwd: tempDir('watch-cli'),
    });
    expect(await main(['watch', ...args], io)).toBe(1);
    expect(io.err()).toContain(message);
    expect(io.err()).not.toContain('secret-token');
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });
});

describe('sitesync watch: the first configuration', () => {
  it('is an error at start when it does not validate (exit 1, one line)', async () => {
    const dir = tempDir('watch-cli');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: [broken\n');
    const io = captureIo({ env: { SITESYNC_URL: 'http://127.0.0.1:9', SITESYNC_API_KEY: 'k'.repeat(20) }, cwd: dir });
    expect(await main(['watch'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: websites\.yaml:\d+:\d+: invalid YAML/);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });
});

describe('sitesync watch: signals', () => {
  it('SIGHUP checks again at once, SIGTERM stops with exit 0 (JSON logs, requests at debug)', async () => {
    server = await startTestServer();
    await insertWebsite(server, 'a.example', { values: STORED_DEFAULTS });
    const dir = tempDir('watch-cli');
    writeFileSync(join(dir, 'websites.yaml'), 'version: 1\nwebsites:\n  - domain: a.example\n    privacy: private\n');
    const io = captureIo({ env: { SITESYNC_URL: server.url, SITESYNC_API_KEY: server.key }, cwd: dir });
    const stop = new AbortController();
    io.signal = stop.signal;
    let hangup = () => {};
    let checks = 0;
    const write = io.stderr.write;
    io.stderr = {
      ...io.stderr,
      write: (text) => {
        write(text);
        if (!text.includes('"msg":"checked"')) return;
        checks += 1;
        // The interval is an hour: only SIGHUP can bring the second check.
        if (checks === 1) setImmediate(hangup);
        else stop.abort(new Error('SIGTERM'));
      },
    };
    const code = await runWatch({ ...CLI_FLAGS, logLevel: 'debug' }, io, (reload) => {
      hangup = reload;
      return () => {};
    });
    expect(code).toBe(0);
    const lines = io
      .err()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.msg === 'checked').map((line) => line.in_sync)).toEqual([1, 1]);
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'stopped' });
    const requests = lines.filter((line) => line.level === 'debug').map((line) => line.msg);
    expect(requests).toHaveLength(2); // one listing a check
    expect(requests[0]).toMatch(/^GET .*\/api\/v1\/websites.* → 200/);
    expect(io.err()).not.toContain(server.key);
  });
});
