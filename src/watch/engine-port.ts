/**
 * The watch port over the engine: `reload` loads the configuration (and each
 * target's, with its git baseline) and keeps the last good one, `check` lists
 * and plans one target, `heal` applies chosen changes of that plan through
 * apply's own safety gate. Every client of one service shares one rate limiter
 * (the request budget: the service counts per client IP), on the watch's clock.
 */
import type { Clock } from '../api/clock.js';
import { type Connection, createClient, RateLimiter, resolveConnection, type WebsitesApi } from '../api/index.js';
import { unacknowledged } from '../apply/acknowledge.js';
import { applyPlan } from '../apply/apply-plan.js';
import type { Journal } from '../apply/journal.js';
import { releaseSecrets } from '../engine/prepare.js';
import { canonicalDomain } from '../model/domain.js';
import type { Plan } from '../model/plan.js';
import { plan as planSites, policyFromConfig } from '../plan/index.js';
import { classify } from './classify.js';
import { type LoadedTarget, loadTargets, type TargetSource } from './load-targets.js';
import type { CheckResult, HealResult, Loaded, WatchedChange, WatchPort } from './port.js';

export interface EnginePortOptions extends TargetSource {
  /** The request budget per service, requests a minute (every request: listings, writes, retries). */
  budgetPerMinute: number;
  clock: Clock;
  /** Wall time: the day expiring ignore rules are compared with. */
  now: () => Date;
  /** Exact domains whose delete self-heal may make. */
  allowDelete: readonly string[];
  journal?: Journal | undefined;
  onRequest: (target: string, status: number | 'error') => void;
  /** Client notices (a long wait, an unreadable setting). */
  notice: (target: string, line: string) => void;
  /** The client's request log (one line per HTTP attempt, secrets redacted): `--log-level debug`. */
  requestLog?: ((target: string, line: string) => void) | undefined;
  /** Told of each client opened (tests count the requests sent, to hold a manual clock still until they arrive). */
  onClient?: ((target: string, api: WebsitesApi) => void) | undefined;
  /** Before each reload (git-pull mode): rejects with the reason to keep the last good configuration. */
  beforeReload?: ((signal: AbortSignal) => Promise<void>) | undefined;
}

interface Resolved {
  target: LoadedTarget;
  connection: Connection;
}

interface Open {
  target: LoadedTarget;
  connection: Connection;
  api: WebsitesApi;
  /** The last check's plan: what `heal` chooses from. */
  last?: { plan: Plan; liveCount: number };
}

export function enginePort(options: EnginePortOptions): WatchPort {
  const open = new Map<string, Open>();
  /** One limiter per service (URL origin), with the limit it was made for. */
  const limiters = new Map<string, { limit: number; limiter: RateLimiter }>();
  let digest: string | undefined;

  /**
   * The budget of each service: --budget, or lower when a target on it declares a
   * lower `rate_limit`. A changed limit makes a new limiter (its clients reopen).
   */
  const updateLimiters = (targets: readonly Resolved[]): Set<string> => {
    const limits = new Map<string, number>();
    for (const { connection, target } of targets) {
      const origin = new URL(connection.url).origin;
      const limit = Math.min(
        limits.get(origin) ?? options.budgetPerMinute,
        target.rateLimit ?? options.budgetPerMinute,
      );
      limits.set(origin, limit);
    }
    const changed = new Set<string>();
    for (const [origin, limit] of limits) {
      if (limiters.get(origin)?.limit === limit) continue;
      limiters.set(origin, { limit, limiter: new RateLimiter({ limit, clock: options.clock }) });
      changed.add(origin);
    }
    return changed;
  };

  const clientFor = ({ target, connection }: Resolved): WebsitesApi => {
    const api = createClient({
      url: connection.url,
      apiKey: connection.apiKey,
      insecureHttp: target.connection.insecureHttp,
      limiter: limiters.get(new URL(connection.url).origin)?.limiter,
      clock: options.clock,
      now: options.now,
      onAttempt: (status) => options.onRequest(target.name, status),
      notice: (line) => options.notice(target.name, line),
      ...(options.requestLog !== undefined && { logger: (line: string) => options.requestLog?.(target.name, line) }),
    });
    options.onClient?.(target.name, api);
    return api;
  };

  const get = (name: string): Open => {
    const found = open.get(name);
    if (found === undefined) throw new Error(`no such target: ${name}`);
    return found;
  };

  return {
    async reload(signal) {
      let targets: Resolved[];
      try {
        await options.beforeReload?.(signal);
        targets = (await loadTargets(options, signal)).map((target) => ({
          target,
          // The key is read here: a missing one is a configuration error, not a failing check.
          connection: resolveConnection({ env: options.env, cwd: options.cwd, ...target.connection }),
        }));
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Loaded;
      }
      const next = targets.map(({ target }) => target.digest).join(',');
      const changed = next !== digest;
      digest = next;
      const newLimiters = updateLimiters(targets);
      const previous = [...open.values()];
      for (const [name, was] of open) {
        const fresh = targets.find(({ target }) => target.name === name);
        const moved =
          fresh === undefined ||
          fresh.target.connectionKey !== was.target.connectionKey ||
          fresh.connection.keyId !== was.connection.keyId || // the key file or variable now holds another key
          newLimiters.has(new URL(was.api.url).origin);
        if (moved) {
          await was.api.close();
          open.delete(name);
        }
      }
      for (const resolved of targets) {
        const was = open.get(resolved.target.name);
        const { target, connection } = resolved;
        open.set(
          target.name,
          was === undefined ? { target, connection, api: clientFor(resolved) } : { ...was, target, connection },
        );
      }
      // The previous load's secrets are no longer held (the same values, loaded again, still are).
      for (const was of previous) releaseSecrets({ state: was.target.state, connection: was.connection });
      return { ok: true, targets: targets.map(({ target }) => target.name), changed };
    },

    async check(name, signal): Promise<CheckResult> {
      const entry = get(name);
      const { state, baseline } = entry.target;
      const policy = policyFromConfig(state.policy, { today: options.now().toISOString().slice(0, 10) });
      const live = await entry.api.listWebsites({ signal });
      const result = planSites(state.websites, live, policy, baseline);
      entry.last = { plan: result, liveCount: live.length };
      const unsafe = unacknowledged(result.safety, { allowDelete: options.allowDelete }).length > 0;
      return classify(
        result,
        state.websites.map((site) => site.domain),
        live.map((site) => canonicalDomain(site.domain)),
        unsafe,
      );
    },

    async heal(name, chosen, signal): Promise<HealResult[]> {
      const entry = get(name);
      const last = entry.last;
      if (last === undefined) throw new Error('nothing checked yet');
      // The gate apply enforces, again, over the whole plan: an unsafe plan heals nothing.
      if (unacknowledged(last.plan.safety, { allowDelete: options.allowDelete }).length > 0)
        return chosen.map((change) => ({ ...pick(change), result: 'skipped', reason: 'the plan is unsafe' }));
      const wanted = new Set(chosen.map((change) => `${change.action} ${change.domain}`));
      const subset: Plan = {
        ...last.plan,
        changes: last.plan.changes.filter((change) => wanted.has(`${change.action} ${change.domain}`)),
      };
      const desired = new Map(entry.target.state.websites.map((site) => [site.domain, site]));
      const journal = options.journal;
      journal?.record({ event: 'begin', target: name, mode: 'self-heal', total: subset.changes.length });
      const applied = await applyPlan(subset, desired, entry.api, {
        parallelism: 1,
        signal,
        liveCount: last.liveCount,
        ...(journal && { journal }),
      });
      journal?.record({ event: 'end', target: name, mode: 'self-heal', counts: applied.counts });
      entry.last = undefined; // healed from this plan once: the next check plans again
      return applied.changes.map((change) => ({
        domain: change.domain,
        action: change.action,
        result: change.outcome,
        ...(change.reason !== undefined && { reason: change.reason }),
      }));
    },

    async close() {
      await Promise.all([...open.values()].map((entry) => entry.api.close()));
      open.clear();
    },
  };
}

const pick = (change: WatchedChange) => ({ domain: change.domain, action: change.action });
