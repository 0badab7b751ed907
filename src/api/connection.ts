/**
 * Where to connect and with which key: `--url` / `SITESYNC_URL` / `api.url` or
 * a target's `url`, and the key from `SITESYNC_API_KEY`, a target's `key_env`
 * or `--api-key-file` (never from a plain command-line argument: it would land
 * in shell history and process lists). A URL the configuration gives is used
 * only when its origin is pinned outside the repository (`--url`,
 * `SITESYNC_URL`, `SITESYNC_ALLOWED_ORIGINS`, the library's `allowedOrigins`):
 * a pull request may choose among the services the operator trusts, never a new
 * destination for a key (docs/workflows.md, "Threat model"). Refuses plain
 * http:// to anything but loopback unless explicitly allowed, because a Bearer
 * key over plaintext leaks. Reads one file; no network. Also the key's
 * non-secret id (`keyIdOf`) that saved plans record.
 */
import { createHash, createHmac } from 'node:crypto';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { SitesyncError } from '../model/errors.js';
import { isSecretVariable, SECRET_VARIABLE_PREFIX, Secret } from '../model/secret.js';

export interface ConnectionInput {
  /** Given by the caller (`--url`, the library's `url`): over SITESYNC_URL and `api.url`. */
  url?: string;
  apiKeyFile?: string;
  /** The environment variable holding the key (a target's `key_env`); default SITESYNC_API_KEY. */
  apiKeyEnv?: string;
  /** The URL the configuration gives: used only when its origin is pinned. */
  configUrl?: ConfigUrl;
  /** Origins pinned by the caller besides SITESYNC_URL and SITESYNC_ALLOWED_ORIGINS (the library's `allowedOrigins`). */
  allowedOrigins?: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  insecureHttp?: boolean;
}

/**
 * A URL written in the configuration: `api.url` (used when neither the caller
 * nor SITESYNC_URL gives one), or the `url` of the target `target` (always its
 * URL: SITESYNC_URL then only pins an origin).
 */
export interface ConfigUrl {
  url: string;
  target?: string;
}

/** The variable of the allow-list: comma-separated origins a configuration's URL may name. */
const ALLOWED_ORIGINS_VARIABLE = 'SITESYNC_ALLOWED_ORIGINS';

export interface Connection {
  url: string;
  apiKey: Secret;
  /** `keyIdOf(apiKey)`: which key (so which account) a saved plan is made with. */
  keyId: string;
  /** `planSignatureOf(apiKey, text)`: signs a saved plan, so only a holder of the key can make one that applies. */
  sign(text: string): string;
}

export function resolveConnection(input: ConnectionInput): Connection {
  const url = connectionUrl(input);
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

/**
 * The URL a key would be sent to, checked (and, when the configuration gives
 * it, pinned) without reading the key: what a run over targets checks for
 * every target before any request.
 */
export function connectionUrl(input: Omit<ConnectionInput, 'apiKeyFile' | 'apiKeyEnv'>): string {
  const insecureHttp = input.insecureHttp ?? false;
  const given = [input.url, input.env.SITESYNC_URL].find((value) => value !== undefined && value.trim() !== '');
  const { configUrl } = input;
  if (configUrl === undefined || (configUrl.target === undefined && given !== undefined)) {
    if (given === undefined) {
      throw new SitesyncError('usage', 'no service URL: pass --url, set SITESYNC_URL, or set api.url in websites.yaml');
    }
    return checkedUrl(given.trim(), insecureHttp);
  }
  const url = checkedUrl(configUrl.url.trim(), insecureHttp);
  const origin = new URL(url).origin;
  if (!pinnedOrigins(input).has(origin)) throw unpinned(configUrl, origin);
  return url;
}

/** The origins a configuration's URL may name: SITESYNC_URL's, the allow-list's and the caller's. */
function pinnedOrigins(input: Pick<ConnectionInput, 'env' | 'allowedOrigins' | 'url'>): Set<string> {
  const origins = new Set<string>();
  for (const given of [input.url, input.env.SITESYNC_URL]) {
    if (given === undefined || !URL.canParse(given.trim())) continue;
    origins.add(new URL(given.trim()).origin);
  }
  const listed = (input.env[ALLOWED_ORIGINS_VARIABLE] ?? '').split(',');
  for (const entry of listed) origins.add(originOf(entry, ALLOWED_ORIGINS_VARIABLE));
  for (const entry of input.allowedOrigins ?? []) origins.add(originOf(entry, 'allowedOrigins'));
  origins.delete('');
  return origins;
}

/** `https://host[:port]` (a trailing slash allowed), or a usage error naming where it was given; '' for a blank entry. */
function originOf(entry: string, source: string): string {
  const text = entry.trim();
  if (text === '') return '';
  const url = URL.canParse(text) ? new URL(text) : undefined;
  const bare =
    url !== undefined &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    !/[?#]/.test(text);
  if (!bare) {
    throw new SitesyncError(
      'usage',
      `${source}: ${JSON.stringify(text)} is not an origin (expected scheme://host[:port], e.g. https://stats.example.com)`,
    );
  }
  return url.origin;
}

function unpinned(configUrl: ConfigUrl, origin: string): SitesyncError {
  const field = configUrl.target === undefined ? 'api.url' : `target ${configUrl.target}: url`;
  const how =
    configUrl.target === undefined
      ? `set SITESYNC_URL (or --url) to the service's URL, or add ${origin} to ${ALLOWED_ORIGINS_VARIABLE}`
      : `add ${origin} to ${ALLOWED_ORIGINS_VARIABLE} (comma-separated origins) or set SITESYNC_URL to a URL on it`;
  return new SitesyncError(
    'usage',
    `${field} ${configUrl.url.trim()} is not a pinned origin: a key is sent only where the environment or the command line allows, never where a file in the repository says; ${how} (docs/workflows.md, "Threat model")`,
  );
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
  // The configuration validates key_env with its position; this holds for every caller.
  if (!isSecretVariable(name)) {
    throw new SitesyncError(
      'usage',
      `key_env ${name}: a key is read only from a variable whose name starts with ${SECRET_VARIABLE_PREFIX}`,
    );
  }
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
