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
  admin?: boolean;
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
  // Names are shown and looked up as typed: " bob" beside "bob" would read as one account.
  if (name.trim() !== name) return 'the account name must not start or end with spaces';
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

/** What provisioning changed, by account name (never a key); all empty when nothing did. */
export interface ProvisionReport {
  /** New accounts, one per new key. */
  added: string[];
  /** Keys put back on the account they had before their removal (its websites and limit kept). */
  restored: string[];
  /** Provisioned keys no longer listed, revoked (their accounts and websites stay). */
  revoked: number;
  /** Keys not put back: their account now holds a key made by `accounts rotate-key`/`create`. */
  skipped: string[];
  /** Keys not provisioned: revoked by `accounts revoke-key` (or a rotation), so never again. */
  refused: string[];
}

/** The account name of a provisioned key: derived from its digest, so a key finds its account again. */
const provisionedName = (keyHash: string) => `key-${keyHash.slice(0, 12)}`;

/**
 * One account per key. The keys are the whole provisioned set: provisioned keys
 * not among them are revoked (their accounts and websites stay); keys made with
 * `accounts create`/`rotate-key` are untouched. No keys at all provisions
 * nothing and revokes nothing (a start without SITESYNC_SERVE_KEYS must not cut
 * off the servers still running with them). Idempotent: a known key keeps its
 * account as it is; `settings` apply to new accounts only, so a limit set with
 * `accounts set-limit` survives restarts. A key put back finds its account by
 * name, unless that account's key was rotated since (skipped: the rotation revoked it). A key
 * revoked by hand or by a rotation is never provisioned again (refused): every restart would
 * otherwise undo the revocation of a leaked key.
 */
export async function provisionKeys(
  store: AccountStore,
  keys: readonly string[],
  settings: AccountSettings = {},
): Promise<ProvisionReport> {
  const short = keys.findIndex((key) => key.length < MIN_PROVISIONED_KEY_LENGTH);
  if (short >= 0) {
    throw new ServerSetupError(
      `SITESYNC_SERVE_KEYS: key ${short + 1} of ${keys.length} is ${keys[short]!.length} characters long; ` +
        `provisioned keys need at least ${MIN_PROVISIONED_KEY_LENGTH}`,
    );
  }
  const report: ProvisionReport = { added: [], restored: [], revoked: 0, skipped: [], refused: [] };
  if (keys.length === 0) return report;
  const accounts = new Map((await store.listAccounts()).map((account) => [account.name, account]));
  for (const key of new Set(keys)) {
    const keyHash = hashKey(key);
    if (await store.findKey(keyHash)) continue;
    const name = provisionedName(keyHash);
    const previous = accounts.get(name);
    if (previous?.keys.some((other) => other.source !== 'provisioned')) {
      report.skipped.push(name);
      continue;
    }
    if (await store.wasRevoked(keyHash)) {
      report.refused.push(name);
      continue;
    }
    const account = previous ?? (await store.createAccount({ name, ...settings }));
    await store.addKey(account.id, keyHash, { source: 'provisioned', prefix: keyPrefix(key, 'provisioned') });
    (previous ? report.restored : report.added).push(name);
  }
  report.revoked = await store.revokeProvisionedKeysExcept(keys.map(hashKey));
  return report;
}

/** One line for the operator: what provisioning changed, or undefined when nothing did. */
export function describeProvisioning(report: ProvisionReport): string | undefined {
  const parts = [
    report.added.length > 0 && `${report.added.length} key(s) added (${report.added.join(', ')})`,
    report.restored.length > 0 && `${report.restored.length} restored (${report.restored.join(', ')})`,
    report.revoked > 0 && `${report.revoked} revoked (no longer listed; accounts and websites kept)`,
    report.skipped.length > 0 &&
      `${report.skipped.length} not restored: the key of ${report.skipped.join(', ')} was rotated since`,
    report.refused.length > 0 &&
      `${report.refused.length} skipped: the key of ${report.refused.join(', ')} was revoked ` +
        '(serve accounts revoke-key or rotate-key); a revoked key is never provisioned again',
  ].filter((part): part is string => typeof part === 'string');
  return parts.length === 0 ? undefined : `SITESYNC_SERVE_KEYS: ${parts.join('; ')}`;
}

/** `SITESYNC_SERVE_KEYS=key1,key2` → ['key1', 'key2']. */
export function parseKeyList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
}
