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
export async function createAccountWithKey(
  store: AccountStore,
  name: string,
  settings: AccountSettings = {},
): Promise<{ account: Account; key: string }> {
  const account = await store.createAccount({ name, ...settings });
  const key = generateKey();
  await store.addKey(account.id, hashKey(key));
  return { account, key };
}

/**
 * One account per key, named after a prefix of the key's hash. Idempotent:
 * a known key keeps its account and websites; its settings are re-applied.
 */
export async function provisionKeys(
  store: AccountStore,
  keys: readonly string[],
  settings: AccountSettings = {},
): Promise<Account[]> {
  const accounts: Account[] = [];
  for (const key of keys) {
    const keyHash = hashKey(key);
    const found = await store.findKey(keyHash);
    if (found) {
      accounts.push((await store.updateAccount(found.account.id, settings)) ?? found.account);
      continue;
    }
    const account = await store.createAccount({ name: `key-${keyHash.slice(0, 12)}`, ...settings });
    await store.addKey(account.id, keyHash);
    accounts.push(account);
  }
  return accounts;
}

/** `SITESYNC_SERVE_KEYS=key1,key2` → ['key1', 'key2']. */
export function parseKeyList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
}
