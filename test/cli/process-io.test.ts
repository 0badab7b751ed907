// The process streams once their reader has gone (src/cli/process-io.ts); the real
// pipes are in test/e2e/closed-output.test.ts. Here: which errors count, what is dropped.
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
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

const errno = (code: string) => Object.assign(new Error(`write ${code}`), { code });

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

  test('any other write error is not swallowed', () => {
    const stdout = fakeStream();
    const output = processOutput({ stdout: stdout.stream, stderr: fakeStream().stream });
    expect(() => stdout.emitter.emit('error', errno('ENOSPC'))).toThrow('write ENOSPC');
    expect(output.closed.aborted).toBe(false);
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
