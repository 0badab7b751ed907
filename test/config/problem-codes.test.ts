/** Every configuration problem carries a stable code; programs (and sitesync itself) branch on it, never on text. */
import { describe, expect, it } from 'vitest';
import { invalidConfigMessage } from '../../src/config/index.js';
import type { ConfigProblem } from '../../src/model/desired-state.js';
import { loadText } from './helpers.js';

const PASSWORD_SITE = `version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: \${SITESYNC_PW_A}\n`;

describe('ConfigProblem.code', () => {
  it.each([
    ['an unset password variable', PASSWORD_SITE, 'missing_variable'],
    [
      'a value the schema refuses',
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: nope\n',
      'invalid_value',
    ],
    ['a domain listed twice', 'version: 1\nwebsites:\n  - domain: a.com\n  - domain: a.com\n', 'duplicate'],
    ['a YAML syntax error', 'version: 1\nwebsites: [\n', 'yaml'],
  ] as const)('%s', (_name, text, code) => {
    expect(loadText(text).errors.map((problem) => problem.code)).toContain(code);
  });

  it('a written domain that is read differently is advice (a warning)', () => {
    const result = loadText('version: 1\nwebsites:\n  - domain: WWW.a.com\n');
    expect(result.warnings.map((problem) => [problem.severity, problem.code])).toEqual([['warning', 'advice']]);
  });

  it('the missing-variable hint follows the code, not the message text', () => {
    const [missing] = loadText(PASSWORD_SITE).errors;
    expect(invalidConfigMessage([missing!])).toContain('apply needs every password variable');
    const lookalike: ConfigProblem = { ...missing!, code: 'invalid_value' };
    expect(invalidConfigMessage([lookalike])).toBe('the configuration is invalid (1 problem)');
  });
});
