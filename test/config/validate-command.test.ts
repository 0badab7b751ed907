/** `sitesync validate` and `sitesync schema`, run in-process through main() with captured output. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { tempConfigDir } from './helpers.js';

const VALID = 'version: 1\nwebsites:\n  - domain: WWW.example.com\n  - domain: shop.example.com\n';
const INVALID = 'version: 1\nwebsites:\n  - domain: example.com\n    privacy: secret\n  - domain: example.com\n';

async function run(argv: string[], files: Record<string, string>, env: Record<string, string> = {}) {
  const io = captureIo({ cwd: tempConfigDir(files), env });
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
}

describe('sitesync validate', () => {
  it('exits 0 on a valid file and prints its warnings', async () => {
    const result = await run(['validate'], { 'websites.yaml': VALID });
    expect(result).toEqual({
      code: 0,
      out:
        'websites.yaml:3:13: warning: websites[0].domain "WWW.example.com" is read as example.com, as the service stores it; write example.com\n' +
        'websites.yaml: valid (2 websites, 1 warning)\n',
      err: '',
    });
  });

  it('exits 1 and lists every problem', async () => {
    const result = await run(['validate', '-f', 'bad.yaml'], { 'bad.yaml': INVALID });
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      'bad.yaml:4:14: websites[0].privacy must be one of public, private, password\n' +
        'bad.yaml:5:13: websites[1].domain example.com is listed twice: also at bad.yaml:3:13 (websites[0])\n' +
        'invalid: 2 errors, 0 warnings\n',
    );
  });

  it('lists the first 100 of 30,000 problems and says how many more there are, in text and JSON', async () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `not_a_field_${i}: 1\n`).join('');
    const files = { 'websites.yaml': `version: 1\n${keys}websites:\n  - domain: a.example.com\n` };
    const text = await run(['validate'], files);
    expect(text.code).toBe(1);
    const lines = text.out.trimEnd().split('\n');
    expect(lines).toHaveLength(102);
    expect(lines.slice(-2)).toEqual([
      'and 29,900 more errors (only the first 100 are listed)',
      'invalid: 30000 errors, 0 warnings',
    ]);
    const json = JSON.parse((await run(['validate', '--format', 'json'], files)).out);
    expect(json.errors).toHaveLength(100);
    expect(json.omittedErrors).toBe(29_900);
  });

  it('merges several -f files and directories', async () => {
    const files = { 'a.yaml': VALID, 'more/b.yml': 'version: 1\nwebsites:\n  - domain: b.example.com\n' };
    const result = await run(['validate', '-f', 'a.yaml', '-f', 'more'], files);
    expect(result.code).toBe(0);
    expect(result.out.split('\n').at(-2)).toBe('a.yaml, more/b.yml: valid (3 websites, 1 warning)');
  });

  it('prints JSON for machines', async () => {
    const bad = await run(['validate', '--format', 'json', '-f', 'bad.yaml'], { 'bad.yaml': INVALID });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toEqual({
      formatVersion: '2.0',
      valid: false,
      files: ['bad.yaml'],
      websites: 0,
      digest: null,
      errors: [
        {
          file: 'bad.yaml',
          line: 4,
          column: 14,
          path: 'websites[0].privacy',
          code: 'invalid_value',
          message: 'must be one of public, private, password',
          text: 'bad.yaml:4:14: websites[0].privacy must be one of public, private, password',
        },
        {
          file: 'bad.yaml',
          line: 5,
          column: 13,
          path: 'websites[1].domain',
          code: 'duplicate',
          message: 'example.com is listed twice: also at bad.yaml:3:13 (websites[0])',
          text: 'bad.yaml:5:13: websites[1].domain example.com is listed twice: also at bad.yaml:3:13 (websites[0])',
        },
      ],
      warnings: [],
      omittedErrors: 0,
      omittedWarnings: 0,
    });
    const good = await run(['validate', '--format', 'json'], { 'websites.yaml': VALID });
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out)).toMatchObject({ valid: true, files: ['websites.yaml'], websites: 2, errors: [] });
    expect(JSON.parse(good.out).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('never prints a password, even a literal one it refuses', async () => {
    const text = 'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: hunter22\n';
    const result = await run(['validate', '--format', 'json'], { 'websites.yaml': text });
    expect(result.code).toBe(1);
    expect(result.out).not.toContain('hunter22');
  });

  it('lists the files it read in JSON even when they are invalid', async () => {
    const files = { 'a.yaml': VALID, 'conf/b.yaml': INVALID };
    const result = await run(['validate', '--format', 'json', '-f', 'a.yaml', '-f', 'conf', '-f', 'gone.yaml'], files);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toMatchObject({ valid: false, files: ['a.yaml', 'conf/b.yaml'] });
  });

  it('warns that prune with no manage scope covers the whole account', async () => {
    const text = 'version: 1\nprune: true\nwebsites:\n  - domain: a.example.com\n';
    const result = await run(['validate'], { 'websites.yaml': text });
    expect(result).toEqual({
      code: 0,
      out:
        'websites.yaml:2:8: warning: prune is on and no `manage` scope is set: every website of the account that is not listed will be deleted (within limits); set manage.include to the domains this file owns\n' +
        'websites.yaml: valid (1 website, 1 warning)\n',
      err: '',
    });
    const scoped = await run(['validate'], { 'websites.yaml': `${text}manage:\n  include: ["*.example.com"]\n` });
    expect(scoped.out).toBe('websites.yaml: valid (1 website, 0 warnings)\n');
    const everything = await run(['validate'], { 'websites.yaml': `${text}manage:\n  include: ["*"]\n` });
    expect(everything.out).toContain('warning: prune is on and no `manage` scope is set');
  });

  it('says that a password variable is empty rather than unset', async () => {
    const text =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
      'version: 1\nwebsites:\n  - domain: a.example.com\n    privacy: password\n    password: ${SITESYNC_PW}\n';
    const empty = await run(['validate'], { 'websites.yaml': text }, { SITESYNC_PW: '' });
    expect(empty.out).toBe(
      'websites.yaml:5:15: warning: websites[0].password uses environment variable SITESYNC_PW, which is empty; validate and plan do not need it, apply does\n' +
        'websites.yaml: valid (1 website, 1 warning)\n',
    );
    expect(empty.code).toBe(0);
    const unset = await run(['validate'], { 'websites.yaml': text });
    expect(unset.out).toContain(
      'websites[0].password uses environment variable SITESYNC_PW, which is not set; validate and plan',
    );
    expect(unset.code).toBe(0);
  });

  it('shows the -f default once in --help', async () => {
    const result = await run(['validate', '--help'], {});
    expect(result.code).toBe(0);
    const help = result.out.replace(/\s+/g, ' '); // commander wraps to the terminal's width
    expect(help).toContain(
      '-f, --file <path> configuration file or directory; repeatable (default: websites.yaml) --format',
    );
  });

  it('rejects an unknown --format', async () => {
    const result = await run(['validate', '--format', 'xml'], { 'websites.yaml': VALID });
    expect(result.code).toBe(1);
    expect(result.err).toContain("argument 'xml' is invalid");
  });
});

describe('sitesync schema', () => {
  it('prints the published schema', async () => {
    const result = await run(['schema'], {});
    const published = readFileSync(new URL('../../schemas/websites.schema.json', import.meta.url), 'utf8');
    expect(result).toEqual({ code: 0, out: published, err: '' });
    expect(JSON.parse(result.out).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
