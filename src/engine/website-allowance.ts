/**
 * Before anything is written: a plan that creates more websites than the
 * account has room for is refused whole (issue 24), instead of sending the
 * creates until the service answers 422. The account is read once, and only
 * for a plan with creates; a service without `GET /api/v1/account` (404, the
 * contract) or without a limit is not checked.
 */
import type { WebsitesApi } from '../api/index.js';
import { SitesyncError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import { countOf } from '../model/text.js';
import { allowanceExcess } from '../plan/allowance.js';
import { logs } from './connect.js';
import type { EngineContext, LogLevel } from './context.js';

/**
 * `held`: the account's websites when the whole account was listed; undefined
 * after a targeted listing, when one more request counts them.
 */
export async function refuseOverAllowance(
  api: WebsitesApi,
  result: Plan,
  held: number | undefined,
  context: EngineContext,
  logLevel: LogLevel,
): Promise<void> {
  if (!result.changes.some((change) => change.action === 'create')) return;
  const calls = context.signal ? { signal: context.signal } : {};
  const debug = (message: string) => {
    if (logs(logLevel, 'debug')) context.events({ type: 'log', level: 'debug', message });
  };
  const account = await api.readAccount(calls);
  if (account === undefined || account.websiteLimit === null) {
    debug(`website allowance: ${account === undefined ? 'not offered by the service' : 'no limit'}`);
    return;
  }
  const limit = account.websiteLimit;
  const count = held ?? (await api.countWebsites(calls));
  if (count === undefined) {
    debug('website allowance: the service does not say how many websites the account holds');
    return;
  }
  debug(`website allowance: ${count} of ${limit} websites held`);
  const excess = allowanceExcess(result, limit, count);
  if (excess === undefined) return;
  const freed = excess.deletes > 0 ? ` (${excess.deletes} deleted first)` : '';
  throw new SitesyncError(
    'validation',
    `the account's plan allows ${countOf(limit, 'website')} and the account holds ${count}${freed}: this plan creates ${excess.creates}, ${excess.over} more than there is room for; nothing was sent. Create fewer (--only) or raise the account's website limit`,
    { reason: 'website_limit', ...excess },
  );
}
