/**
 * `GET /api/v1/account` (the deployed service's `AccountResource`): the one
 * thing sitesync reads from it is the website limit of the account's plan,
 * `data.plan.features.websites`, where -1 means none. The contract has no
 * such route (404): then nothing is known, and nothing is checked.
 */

export const ACCOUNT_PATH = '/api/v1/account';

/** What the account allows; `websiteLimit` null: no limit. */
export interface AccountAllowance {
  websiteLimit: number | null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The allowance in an account answer, or undefined when it does not say (a
 * missing or odd `features.websites`): an advisory check never fails a plan
 * over a field it cannot read.
 */
export function decodeAccountAllowance(body: unknown): AccountAllowance | undefined {
  const data = isObject(body) && isObject(body.data) ? body.data : body;
  const plan = isObject(data) ? data.plan : undefined;
  const features = isObject(plan) ? plan.features : undefined;
  const raw = isObject(features) ? features.websites : undefined;
  const limit = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit)) return undefined;
  return { websiteLimit: limit < 0 ? null : limit };
}
