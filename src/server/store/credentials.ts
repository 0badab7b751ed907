/**
 * API keys and website passwords at rest. Keys are high-entropy random strings,
 * so a sha256 digest (peppered by the store: store/server-secret.ts) is a safe, fast
 * lookup hash; passwords are low-entropy and get a salted scrypt hash. Neither value is ever stored or logged in clear.
 */
import { createHash, randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;
const PASSWORD_KEY_LENGTH = 32;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A fresh API key: 32 random bytes, URL-safe, with a recognisable prefix. */
export function generateKey(): string {
  return `ss_${randomBytes(32).toString('base64url')}`;
}

/** `scrypt$<salt>$<hash>` (base64url). Asynchronous so it never blocks other requests. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, PASSWORD_KEY_LENGTH);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}
