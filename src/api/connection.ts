/**
 * Where to connect and with which key: `--url` / `SITESYNC_URL` / `api.url`,
 * and the key from `SITESYNC_API_KEY` or `--api-key-file` (never from a plain
 * command-line argument: it would land in shell history and process lists).
 * Refuses plain http:// to anything but loopback unless explicitly allowed,
 * because a Bearer key over plaintext leaks. Reads one file; no network.
 * Also the key's non-secret id (`keyIdOf`) that saved plans record.
 */
import { createHash, createHmac } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { SitesyncError } from '../model/errors.js';
import { Secret } from '../model/secret.js';

export interface ConnectionInput {
  url?: string;
  apiKeyFile?: string;
  /** The environment variable holding the key (a target's `key_env`); default SITESYNC_API_KEY. */
  apiKeyEnv?: string;
  configApiUrl?: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  insecureHttp?: boolean;
}

export interface Connection {
  url: string;
  apiKey: Secret;
  /** `keyIdOf(apiKey)`: which key (so which account) a saved plan is made with. */
  keyId: string;
  /** `planSignatureOf(apiKey, text)`: signs a saved plan, so only a holder of the key can make one that applies. */
  sign(text: string): string;
}

export function resolveConnection(input: ConnectionInput): Connection {
  const url = checkedUrl(pickUrl(input), input.insecureHttp ?? false);
  const apiKey = readApiKey(input);
  return { url, apiKey, keyId: keyIdOf(apiKey), sign: (text) => planSignatureOf(apiKey, text) };
}

/**
 * HMAC-SHA256 of a saved plan's text keyed from the API key (with a label, so
 * the MAC is good for nothing else). Computed here so the key is revealed only in api/.
 */
export function planSignatureOf(apiKey: Secret, text: string): string {
  return createHmac('sha256', `sitesync plan signature\0${apiKey.reveal()}`).update(text).digest('hex');
}

/**
 * An account identity that is not a secret: the first 16 hex digits (64 bits)
 * of sha256("sitesync key id\0" + key). API keys are high-entropy, so a salted,
 * truncated digest reveals nothing usable about the key; it only tells two keys
 * apart (docs/plan-format.md). Computed here so the key is revealed only in api/.
 */
export function keyIdOf(apiKey: Secret): string {
  return createHash('sha256').update(`sitesync key id\0${apiKey.reveal()}`).digest('hex').slice(0, 16);
}

function pickUrl(input: ConnectionInput): string {
  const candidates = [input.url, input.env.SITESYNC_URL, input.configApiUrl];
  const url = candidates.find((value) => value !== undefined && value.trim() !== '');
  if (url === undefined) {
    throw new SitesyncError('usage', 'no service URL: pass --url, set SITESYNC_URL, or set api.url in websites.yaml');
  }
  return url.trim();
}

/** Loopback is the only place where plain http cannot leak the key to the network. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** A normalised base URL (no trailing slash, no query), or a usage error. */
export function checkedUrl(text: string, insecureHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SitesyncError(
      'usage',
      `the service URL "${text}" is not a URL (expected e.g. https://analytics.example.com)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SitesyncError('usage', `the service URL must start with https:// (got ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new SitesyncError(
      'usage',
      'the service URL must not contain credentials; give the key in SITESYNC_API_KEY or --api-key-file',
    );
  }
  if (url.protocol === 'http:' && !insecureHttp && !isLoopbackHost(url.hostname)) {
    throw new SitesyncError(
      'usage',
      `refusing plain http:// to ${url.host}: the API key would travel unencrypted (use https://, or --insecure-http if you must)`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

function readApiKey(input: ConnectionInput): Secret {
  if (input.apiKeyFile !== undefined) return readKeyFile(input.apiKeyFile, input.cwd);
  const name = input.apiKeyEnv ?? 'SITESYNC_API_KEY';
  const fromEnv = input.env[name]?.trim();
  if (fromEnv === undefined || fromEnv === '') {
    const how = input.apiKeyEnv === undefined ? 'set SITESYNC_API_KEY or pass --api-key-file <file>' : `set ${name}`;
    throw new SitesyncError('usage', `no API key: ${how}`);
  }
  return checkedKey(fromEnv, name);
}

/** A key file larger than this is not one (a key is a single token). */
export const MAX_KEY_FILE_BYTES = 64 * 1024;
/** How long a pipe (`--api-key-file <(pass show key)`) may take to deliver the key. */
const KEY_PIPE_WAIT_MS = 10_000;

function readKeyFile(file: string, cwd: string): Secret {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  let text: string;
  try {
    text = readBoundedSync(path, file);
  } catch (error) {
    if (error instanceof SitesyncError) throw error;
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read';
    throw new SitesyncError('usage', `--api-key-file ${file}: ${reason}`);
  }
  const key = text.trim();
  if (key === '') throw new SitesyncError('usage', `--api-key-file ${file}: the file is empty`);
  return checkedKey(key, `--api-key-file ${file}`);
}

function checkedKey(key: string, source: string): Secret {
  // A key with inner whitespace or control characters is a wrong file, and would break the header.
  if (/[\s\x00-\x1f\x7f]/.test(key)) {
    throw new SitesyncError(
      'usage',
      `${source}: the API key must be a single token (found whitespace or a line break)`,
    );
  }
  return new Secret(key);
}

/**
 * The key file, read without trusting its kind (issue 16 item 14): at most
 * MAX_KEY_FILE_BYTES + 1 bytes of /dev/zero, and a FIFO opened without
 * blocking (no writer: empty). A pipe that has a writer is waited for, up to
 * KEY_PIPE_WAIT_MS in all. Synchronous, as the connection is resolved once.
 */
function readBoundedSync(path: string, shown: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    const deadline = Date.now() + KEY_PIPE_WAIT_MS;
    const buffer = Buffer.alloc(MAX_KEY_FILE_BYTES + 1);
    for (;;) {
      let count: number;
      try {
        count = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); // a writer is on its way
        continue;
      }
      if (count === 0) break;
      size += count;
      if (size > MAX_KEY_FILE_BYTES) {
        throw new SitesyncError(
          'usage',
          `--api-key-file ${shown}: larger than ${MAX_KEY_FILE_BYTES} bytes, so not an API key file`,
        );
      }
      chunks.push(Buffer.from(buffer.subarray(0, count)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
