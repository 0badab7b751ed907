import { describe, expect, it } from 'vitest';
import { colorEnabled, readSharedOptions } from '../../src/cli/shared-options.js';

const io = (isTTY: boolean, env: Record<string, string> = {}) => ({ env, stdout: { isTTY, write: () => {} } });

describe('shared options', () => {
  it.each([
    ['a terminal', { isTTY: true, env: {}, noColorFlag: false }, true],
    ['a pipe', { isTTY: false, env: {}, noColorFlag: false }, false],
    ['a pipe in CI (picocolors would colour it)', { isTTY: false, env: { CI: 'true' }, noColorFlag: false }, false],
    ['NO_COLOR on a terminal', { isTTY: true, env: { NO_COLOR: '1' }, noColorFlag: false }, false],
    ['--no-color on a terminal', { isTTY: true, env: {}, noColorFlag: true }, false],
    ['FORCE_COLOR on a pipe', { isTTY: false, env: { FORCE_COLOR: '1' }, noColorFlag: false }, true],
    ['FORCE_COLOR=0 on a terminal', { isTTY: true, env: { FORCE_COLOR: '0' }, noColorFlag: false }, false],
    [
      'NO_COLOR beats FORCE_COLOR',
      { isTTY: false, env: { NO_COLOR: '1', FORCE_COLOR: '1' }, noColorFlag: false },
      false,
    ],
  ])('colour on %s: %s', (_name, input, expected) => {
    expect(colorEnabled(input)).toBe(expected);
  });

  it('applies defaults', () => {
    expect(readSharedOptions({}, io(false), ['human', 'json', 'markdown'])).toEqual({
      url: undefined,
      apiKeyFile: undefined,
      insecureHttp: false,
      rateLimit: undefined,
      logLevel: 'warn',
      files: [],
      format: 'human',
      only: [],
      skip: [],
      color: false,
      targets: [],
    });
  });

  it.each([
    [{ rateLimit: 'fast' }, '--rate-limit "fast": expected a whole number of requests per minute (0: no limit)'],
    [{ skip: ['a/b'] }, '--skip "a/b": not a domain glob (letters, digits, . - _ * ?)'],
    [{ format: 'markdown' }, '--format must be one of human, json'],
  ])('rejects %o', (raw, message) => {
    expect(() => readSharedOptions(raw, io(false))).toThrow(message);
  });
});
