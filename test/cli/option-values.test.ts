import { describe, expect, it } from 'vitest';
import { globsOption, wholeNumberOption } from '../../src/cli/option-values.js';

describe('wholeNumberOption: the one parser of --port, --throttle, --parallelism, --rate-limit, --max-*', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    [' 7 ', 7],
  ])('reads %j as %d', (text, value) => {
    expect(wholeNumberOption('--n', text, { min: 0 })).toBe(value);
  });

  it.each(['-1', '1.5', '1e2', '0x10', '', 'fast'])('refuses %j, naming the option', (text) => {
    expect(() => wholeNumberOption('--n', text, { min: 0 })).toThrow(
      `--n ${JSON.stringify(text)}: expected a whole number ≥ 0`,
    );
  });

  it('names the range when there is a maximum, and the meaning when given', () => {
    expect(() => wholeNumberOption('--port', '70000', { min: 0, max: 65535 })).toThrow(
      '--port must be a whole number from 0 to 65535, not "70000"',
    );
    expect(() => wholeNumberOption('--parallelism', '0', { min: 1 })).toThrow('expected a whole number ≥ 1');
    expect(() => wholeNumberOption('--rate-limit', 'x', { min: 0, meaning: 'per minute' })).toThrow(
      '--rate-limit "x": expected a whole number per minute',
    );
  });
});

describe('globsOption', () => {
  it('returns the globs, or an empty list when none were given', () => {
    expect(globsOption('--only', ['*.example.com', 'a.com'])).toEqual(['*.example.com', 'a.com']);
    expect(globsOption('--only', undefined)).toEqual([]);
  });

  it('refuses a bad glob, naming the option and what was expected', () => {
    expect(() => globsOption('--skip', ['a b'])).toThrow(
      '--skip "a b": not a domain glob (letters, digits, . - _ * ?)',
    );
    expect(() => globsOption('--allow-delete', ['a/b'], 'a domain or glob')).toThrow(
      '--allow-delete "a/b": not a domain or glob',
    );
  });
});
