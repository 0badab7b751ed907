// The last line of defence, on the real process streams: the built CLI writes
// through redacting stdout/stderr (src/cli/io.ts), so a key that reaches the
// text some other way (here a server that quotes it back in an error message)
// still never leaves the process. In-process tests capture output through a
// redacting helper of their own, so only a child process can prove this.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fakeServer } from '../api/support.js';
import { tempDirWith } from '../helpers/temp.js';
import { type BuiltCli, builtCli, runCli } from './built-cli.js';

const KEY = 'echoed-key-0123456789abcdef';

describe('the process streams redact secrets', () => {
  let cli: BuiltCli;
  let server: Awaited<ReturnType<typeof fakeServer>>;
  beforeAll(async () => {
    cli = await builtCli();
    // A careless service: its error message quotes the key it was sent.
    server = await fakeServer((request, response) => {
      const key = /^Bearer (.*)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `the key ${key} is not valid here` }));
    });
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  test('a key quoted back by the server appears in neither stdout nor stderr', async () => {
    const dir = tempDirWith('redaction', { 'websites.yaml': 'version: 1\nwebsites:\n  - domain: a.example\n' });
    const env = { SITESYNC_URL: server.url, SITESYNC_API_KEY: KEY };
    for (const args of [['plan'], ['plan', '--log-level', 'debug'], ['export']]) {
      const run = await runCli(cli, args, { cwd: dir, env });
      expect(run.code, run.err).toBe(1);
      // The message was written, with the key in it, and the stream replaced it.
      expect(run.err).toContain('the key (secret) is not valid here');
      expect(`${run.out}${run.err}`).not.toContain(KEY);
    }
  });
});
