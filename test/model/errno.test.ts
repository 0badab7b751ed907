// System errors in words (src/model/errno.ts), from the errors Node really throws.
import { readFileSync, renameSync, writeSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { errnoInWords } from '../../src/model/errno.js';

const thrown = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
};

describe('errnoInWords', () => {
  test('libuv’s words then the code; the system call and the paths dropped', () => {
    expect(errnoInWords(thrown(() => writeSync(987_654, 'x')))).toBe('bad file descriptor (EBADF)');
    expect(errnoInWords(thrown(() => readFileSync('/nonexistent/x')))).toBe('no such file or directory (ENOENT)');
    expect(errnoInWords(thrown(() => renameSync('/nonexistent/a', '/nonexistent/b')))).toBe(
      'no such file or directory (ENOENT)',
    );
  });

  test('an error without a code, or not an error, as it is', () => {
    expect(errnoInWords(new Error('odd'))).toBe('odd');
    expect(errnoInWords('text')).toBe('text');
  });
});
