// The temp-dir helper removes what it made: a test's directories when the test ends, the file's at its end.
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { TEMP_PREFIX, tempDir, tempDirWith } from './temp.js';

describe('tempDir', () => {
  const fileScoped = tempDir('file-scope');
  let testScoped = '';

  test('makes a fresh sitesync-* directory, holding the given files', () => {
    testScoped = tempDirWith('test-scope', { 'a/b.txt': 'x' });
    expect(basename(testScoped).startsWith(`${TEMP_PREFIX}test-scope-`)).toBe(true);
    expect(existsSync(`${testScoped}/a/b.txt`)).toBe(true);
  });

  test("removes a test's directory once that test has finished, and keeps the file's", () => {
    expect(testScoped).not.toBe('');
    expect(existsSync(testScoped)).toBe(false);
    expect(existsSync(fileScoped)).toBe(true);
  });

  afterAll(() => {
    // The setup file's afterAll (which removes it) runs after this one.
    expect(existsSync(fileScoped)).toBe(true);
  });
});
