// The process streams once their reader has gone (src/cli/process-io.ts); the real
// pipes are in test/e2e/closed-output.test.ts. Here: which errors count, what is dropped.
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { OutputFailed } from '../../src/cli/io.js';
import { processOutput } from '../../src/cli/process-io.js';
import { Secret } from '../../src/model/secret.js';

/** A process stream that records what reaches it. */
function fakeStream() {
  const emitter = new EventEmitter();
  const written: string[] = [];
  const stream = Object.assign(emitter, {
    isTTY: false,
    write: (text: string) => {
      written.push(text);
      return true;
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, emitter, written };
}

/** An error as Node reports a failed write (libuv's text, then the system call). */
const WORDS: Record<string, string> = {
  EPIPE: 'broken pipe',
  ECONNRESET: 'connection reset by peer',
  ENOSPC: 'no space left on device',
  EIO: 'i/o error',
};
const errno = (code: string) => Object.assign(new Error(`${code}: ${WORDS[code]}, write`), { code });

describe('processOutput', () => {
  test('a closed pipe on stdout: its later lines are dropped, stderr still written, `closed` names stdout', () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    const output = processOutput({ stdout: stdout.stream, stderr: stderr.stream });
    output.stdout.write('before\n');
    expect(output.closed.aborted).toBe(false);
    stdout.emitter.emit('error', errno('EPIPE'));
    output.stdout.write('after\n');
    output.stderr.write('still here\n');
    expect(stdout.written).toEqual(['before\n']);
    expect(stderr.written).toEqual(['still here\n']);
    expect(output.closed.aborted).toBe(true);
    expect((output.closed.reason as Error).message).toBe('stdout closed');
  });

  test('the first stream to close is the reason; a socket reset counts as a reader gone', () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    const output = processOutput({ stdout: stdout.stream, stderr: stderr.stream });
    stderr.emitter.emit('error', errno('ECONNRESET'));
    stdout.emitter.emit('error', errno('EPIPE'));
    expect((output.closed.reason as Error).message).toBe('stderr closed');
    output.stdout.write('dropped\n');
    expect(stdout.written).toEqual([]);
  });

  test('any other write error (a full disk): that stream is dropped, one line on the other, `closed` is a failure', () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    const output = processOutput({ stdout: stdout.stream, stderr: stderr.stream });
    stdout.emitter.emit('error', errno('ENOSPC'));
    output.stdout.write('dropped\n');
    expect(stdout.written).toEqual([]);
    expect(stderr.written).toEqual(['sitesync: cannot write to stdout: no space left on device (ENOSPC)\n']);
    expect(output.closed.reason).toBeInstanceOf(OutputFailed);
    expect(output.closed.reason.message).toBe('cannot write to stdout: no space left on device (ENOSPC)');
    // A second error of the same stream says nothing more.
    stdout.emitter.emit('error', errno('ENOSPC'));
    expect(stderr.written).toHaveLength(1);
  });

  test('a failing stderr is reported on stdout; both failing: nothing thrown, nothing written', () => {
    const stdout = fakeStream();
    const stderr = fakeStream();
    processOutput({ stdout: stdout.stream, stderr: stderr.stream });
    stderr.emitter.emit('error', errno('EIO'));
    expect(stdout.written).toEqual(['sitesync: cannot write to stderr: i/o error (EIO)\n']);
    const both = { stdout: fakeStream(), stderr: fakeStream() };
    const output = processOutput({ stdout: both.stdout.stream, stderr: both.stderr.stream });
    both.stdout.emitter.emit('error', errno('ENOSPC'));
    both.stderr.emitter.emit('error', errno('ENOSPC'));
    expect(output.closed.aborted).toBe(true);
    output.stdout.write('x');
    output.stderr.write('y');
    expect(both.stdout.written).toEqual([]);
    expect(both.stderr.written).toEqual(['sitesync: cannot write to stdout: no space left on device (ENOSPC)\n']);
  });

  test('what is written is redacted', () => {
    const secret = new Secret('hunter2-password-0123');
    try {
      const stdout = fakeStream();
      const output = processOutput({ stdout: stdout.stream, stderr: fakeStream().stream });
      output.stdout.write('the key hunter2-password-0123 leaked\n');
      expect(stdout.written.join('')).toBe('the key (secret) leaked\n');
    } finally {
      secret.release();
    }
  });
});
