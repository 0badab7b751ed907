// `sitesync serve` (the real bin, as a child process) on SIGTERM: a request in flight that
// completes is answered, one that never completes is closed after --shutdown-grace, and the
// process exits 0 (issue 9). On the run's backend: an SQLite file, or a PostgreSQL database (a replica
// draining, issue 10: its pool closes after the last answer).
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSocket, parseAnswer, readUntilClosed } from '../helpers/raw-http.js';
import { useTestDatabase } from '../helpers/test-database.js';
import { type BuiltCli, builtCli } from './built-cli.js';

const KEY = 'shutdown-key-0123456789';

let cli: BuiltCli;
beforeAll(async () => {
  cli = await builtCli();
}, 120_000);

function startPost(socket: Socket, body: string): Promise<void> {
  socket.write(
    `POST /api/v1/websites HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${KEY}\r\naccept: application/json\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\nexpect: 100-continue\r\n\r\n`,
  );
  // node answers 100 Continue once the request is parsed and handed on: it is in flight.
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      if (!chunk.toString('latin1').includes('100 Continue')) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
  });
}

describe('sitesync serve on SIGTERM', () => {
  const database = useTestDatabase('serve-shutdown');
  it('answers the request that completes, closes the one that does not after the grace period, exits 0', async () => {
    const child = spawn(
      process.execPath,
      [cli.bin, 'serve', '--port', '0', '--db', database().db, '--shutdown-grace', '1'],
      { env: { PATH: process.env.PATH ?? '', SITESYNC_SERVE_KEYS: KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        err += chunk;
        const match = /listening on (\S+?),/.exec(err);
        if (match) resolve(match[1]!);
      });
      child.on('close', () => reject(new Error(`serve exited: ${err}`)));
    });

    const finishing = await openSocket(url);
    const stalled = await openSocket(url);
    const finishingAnswer = readUntilClosed(finishing);
    const stalledAnswer = readUntilClosed(stalled);
    const body = 'domain=finishing.example';
    await startPost(finishing, body);
    await startPost(stalled, 'domain=stalled.example');
    child.kill('SIGTERM');
    finishing.write(body);

    const answer = parseAnswer((await finishingAnswer).replace('HTTP/1.1 100 Continue\r\n\r\n', ''));
    expect(answer.status).toBe(201);
    expect(await stalledAnswer).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    expect(await exited).toBe(0);
    expect(err).toContain('sitesync serve: stopped');
  }, 30_000);
});
