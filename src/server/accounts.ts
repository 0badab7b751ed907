/**
 * Accounts and their keys: creating an account with a fresh key (for people),
 * and provisioning one account per given key (for tests, demos and CI). Both
 * work on any `AccountStore`; only key hashes reach the store.
 */
import { generateKey, hashKey } from './credentials.js';
import type { Account, AccountStore } from './store.js';

export interface AccountSettings {
  websiteLimit?: number | null;
  apiAccess?: boolean;
}

/** Creates an account and returns its only key; the key cannot be shown again. */
export function createAccountWithKey(
  store: AccountStore,
  name: string,
  settings: AccountSettings = {},
): { account: Account; key: string } {
  const account = store.createAccount({ name, ...settings });
  const key = generateKey();
  store.addKey(account.id, hashKey(key));
  return { account, key };
}

/**
 * One account per key, named after a prefix of the key's hash. Idempotent:
 * a known key keeps its account and websites; its settings are re-applied.
 */
export function provisionKeys(store: AccountStore, keys: readonly string[], settings: AccountSettings = {}): Account[] {
  return keys.map((key) => {
    const keyHash = hashKey(key);
    const found = store.findKey(keyHash);
    if (found) return store.updateAccount(found.account.id, settings) ?? found.account;
    const account = store.createAccount({ name: `key-${keyHash.slice(0, 12)}`, ...settings });
    store.addKey(account.id, keyHash);
    return account;
  });
}

/** `SITESYNC_SERVE_KEYS=key1,key2` → ['key1', 'key2']. */
export function parseKeyList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
}
