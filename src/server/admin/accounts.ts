/**
 * Accounts and their keys: creating an account with a fresh key and rotating
 * it (for people), and provisioning one account per given key (for tests,
 * demos and CI). All work on any `AccountStore`; only key digests reach it.
 */

import { ServerSetupError } from '../setup-error.js';
import type { Account, AccountStore } from '../store/contract.js';
import { generateKey, hashKey } from '../store/credentials.js';

export interface AccountSettings {
  websiteLimit?: number | null;
  apiAccess?: boolean;
}

/** Provisioned keys are chosen by people: shorter ones are guessable. */
export const MIN_PROVISIONED_KEY_LENGTH = 16;

/** What `accounts list` shows of a key: enough to tell keys apart, too little to guess one. */
export function keyPrefix(key: string, source: 'provisioned' | 'created'): string {
  // Generated keys start with "ss_" and 256 random bits: 4 of their characters reveal 24 bits.
  return source === 'created' ? key.slice(0, 7) : key.slice(0, 4);
}

/** Control and format characters (escapes, bidi overrides) would forge lines in listings and logs. */
export function accountNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'the account name must not be empty';
  if (/[\p{Cc}\p{Cf}]/u.test(name)) return 'the account name must not contain control characters';
  if (name.length > 200) return 'the account name must be at most 200 characters';
  return undefined;
}

/** Creates an account and returns its only key; the key cannot be shown again. */
export async function createAccountWithKey(
  store: AccountStore,
  name: string,
  settings: AccountSettings = {},
): Promise<{ account: Account; key: string }> {
  const account = await store.createAccount({ name, ...settings });
  const key = generateKey();
  await store.addKey(account.id, hashKey(key), { source: 'created', prefix: keyPrefix(key, 'created') });
  return { account, key };
}

/** A new key for the account; every other key of it stops working at once. */
export async function rotateKey(store: AccountStore, account: Account): Promise<{ key: string; revoked: number }> {
  const key = generateKey();
  const added = await store.addKey(account.id, hashKey(key), { source: 'created', prefix: keyPrefix(key, 'created') });
  return { key, revoked: await store.revokeOtherKeys(account.id, added.id) };
}

/**
 * One account per key, named after a prefix of the key's digest. The keys are
 * the whole provisioned set: provisioned keys not among them are revoked (their
 * accounts and websites stay); keys made with `accounts create` are untouched.
 * Idempotent: a known key keeps its account and websites; its settings are re-applied.
 */
export async function provisionKeys(
  store: AccountStore,
  keys: readonly string[],
  settings: AccountSettings = {},
): Promise<Account[]> {
  const short = keys.findIndex((key) => key.length < MIN_PROVISIONED_KEY_LENGTH);
  if (short >= 0) {
    throw new ServerSetupError(
      `SITESYNC_SERVE_KEYS: key ${short + 1} of ${keys.length} is ${keys[short]!.length} characters long; ` +
        `provisioned keys need at least ${MIN_PROVISIONED_KEY_LENGTH}`,
    );
  }
  const accounts: Account[] = [];
  for (const key of keys) {
    const keyHash = hashKey(key);
    const found = await store.findKey(keyHash);
    if (found) {
      accounts.push((await store.updateAccount(found.account.id, settings)) ?? found.account);
      continue;
    }
    const account = await store.createAccount({ name: `key-${keyHash.slice(0, 12)}`, ...settings });
    await store.addKey(account.id, keyHash, { source: 'provisioned', prefix: keyPrefix(key, 'provisioned') });
    accounts.push(account);
  }
  await store.revokeProvisionedKeysExcept(keys.map(hashKey));
  return accounts;
}

/** `SITESYNC_SERVE_KEYS=key1,key2` → ['key1', 'key2']. */
export function parseKeyList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
}
