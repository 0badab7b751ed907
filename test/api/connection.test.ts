import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_KEY_FILE_BYTES } from '../../src/api/connection.js';
import { resolveConnection } from '../../src/api/index.js';
import { tempDirWith } from '../helpers/temp.js';

const dir = tempDirWith('connection', {
  'key.txt': 'key-from-file-1234\n',
  'two-lines.txt': 'key-one\nkey-two\n',
  'empty.txt': '\n',
});
const env = { SITESYNC_API_KEY: 'key-from-env-1234' };

describe('resolveConnection', () => {
  it('takes --url first, then SITESYNC_URL, then a pinned api.url; trims a trailing slash', () => {
    const base = { env, cwd: dir };
    const configUrl = { url: 'https://c.example.com/' };
    expect(resolveConnection({ ...base, url: 'https://a.example.com/', configUrl }).url).toBe('https://a.example.com');
    expect(
      resolveConnection({ ...base, env: { ...env, SITESYNC_URL: 'https://b.example.com/analytics/' }, configUrl }).url,
    ).toBe('https://b.example.com/analytics');
    const allowed = { ...env, SITESYNC_ALLOWED_ORIGINS: 'https://C.example.com:443/' };
    expect(resolveConnection({ ...base, env: allowed, configUrl }).url).toBe('https://c.example.com');
    expect(resolveConnection({ ...base, allowedOrigins: ['https://c.example.com'], configUrl }).url).toBe(
      'https://c.example.com',
    );
    expect(() => resolveConnection({ ...base, configUrl })).toThrow(
      'api.url https://c.example.com/ is not a pinned origin',
    );
  });

  it("uses a target's url over SITESYNC_URL, which only pins its origin", () => {
    const configUrl = { url: 'https://b.example.com/staging', target: 'staging' };
    const pinned = { ...env, SITESYNC_URL: 'https://b.example.com/production' };
    expect(resolveConnection({ env: pinned, cwd: dir, configUrl }).url).toBe('https://b.example.com/staging');
    expect(() => resolveConnection({ env, cwd: dir, configUrl })).toThrow(
      'target staging: url https://b.example.com/staging is not a pinned origin',
    );
    expect(() => resolveConnection({ env, cwd: dir, configUrl, allowedOrigins: ['https://b.example.com/x'] })).toThrow(
      'allowedOrigins: "https://b.example.com/x" is not an origin',
    );
  });

  it('reads a key only from a SITESYNC_ variable, whoever asks', () => {
    const url = 'https://a.example.com';
    expect(() =>
      resolveConnection({ url, env: { TEAM_WEBHOOK: 'x'.repeat(20) }, cwd: dir, apiKeyEnv: 'TEAM_WEBHOOK' }),
    ).toThrow('key_env TEAM_WEBHOOK: a key is read only from a variable whose name starts with SITESYNC_');
  });

  it('reads the key from --api-key-file (relative to cwd) before SITESYNC_API_KEY', () => {
    expect(
      resolveConnection({ url: 'https://a.example.com', apiKeyFile: 'key.txt', env, cwd: dir }).apiKey.reveal(),
    ).toBe('key-from-file-1234');
    expect(resolveConnection({ url: 'https://a.example.com', env, cwd: dir }).apiKey.reveal()).toBe(
      'key-from-env-1234',
    );
  });

  // Issue 16 item 14: every input is read bounded, whatever its kind (the key file grew without end on /dev/zero).
  it('reads a key file of any kind within a bound: /dev/zero stops at the limit, a FIFO with no writer is empty', () => {
    const url = 'https://a.example.com';
    expect(() => resolveConnection({ url, env, cwd: dir, apiKeyFile: '/dev/zero' })).toThrow(
      `--api-key-file /dev/zero: larger than ${MAX_KEY_FILE_BYTES} bytes, so not an API key file`,
    );
    const fifo = join(tempDirWith('connection-fifo', {}), 'key');
    execFileSync('mkfifo', [fifo]);
    expect(() => resolveConnection({ url, env, cwd: dir, apiKeyFile: fifo })).toThrow(
      `--api-key-file ${fifo}: the file is empty`,
    );
  });

  it.each([
    [{ env }, 'no service URL: pass --url, set SITESYNC_URL, or set api.url in websites.yaml'],
    [{ url: 'https://a.example.com', env: {} }, 'no API key: set SITESYNC_API_KEY or pass --api-key-file <file>'],
    [{ url: 'https://a.example.com', env, apiKeyFile: 'missing.txt' }, '--api-key-file missing.txt: no such file'],
    [{ url: 'https://a.example.com', env, apiKeyFile: 'empty.txt' }, '--api-key-file empty.txt: the file is empty'],
    [
      { url: 'https://a.example.com', env, apiKeyFile: 'two-lines.txt' },
      '--api-key-file two-lines.txt: the API key must be a single token (found whitespace or a line break)',
    ],
    [{ url: 'ftp://a.example.com', env }, 'the service URL must start with https:// (got ftp://)'],
    [
      { url: 'example.com', env },
      'the service URL "example.com" is not a URL (expected e.g. https://analytics.example.com)',
    ],
    [
      { url: 'https://user:pw@a.example.com', env },
      'the service URL must not contain credentials; give the key in SITESYNC_API_KEY or --api-key-file',
    ],
    [
      { url: 'http://analytics.example.com', env },
      'refusing plain http:// to analytics.example.com: the API key would travel unencrypted (use https://, or --insecure-http if you must)',
    ],
  ])('refuses %j with a usage error', (input, message) => {
    expect(() => resolveConnection({ cwd: dir, ...input })).toThrow(
      expect.objectContaining({ code: 'usage', message }),
    );
  });

  it('allows plain http:// to loopback, and elsewhere only with insecureHttp', () => {
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:1', 'http://[::1]:8080']) {
      expect(resolveConnection({ url, env, cwd: dir }).url).toBe(url);
    }
    expect(resolveConnection({ url: 'http://10.0.0.5', env, cwd: dir, insecureHttp: true }).url).toBe(
      'http://10.0.0.5',
    );
  });

  it('never shows the key in a message', () => {
    const input = { url: 'http://analytics.example.com', env, cwd: dir };
    expect(() => resolveConnection(input)).toThrow(
      expect.not.objectContaining({ message: expect.stringContaining('key-from-env') }),
    );
  });
});
