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
import { changesBreakingPolicies, policyNames, withPolicies } from '../engine/policies.js';
import { releasePasswords, releaseSecrets } from '../engine/prepare.js';
import { canonicalDomain } from '../model/domain.js';
import type { Plan } from '../model/plan.js';
import { plan as planSites, policyFromConfig } from '../plan/index.js';
import { divergenceText } from '../render/apply-result.js';
import { classify } from './classify.js';
import { differencesOf } from './differences.js';
import { type LoadedTarget, TargetLoader, type TargetSource } from './load-targets.js';
import type { CheckResult, HealResult, Loaded, WatchedChange, WatchPort, WriteGuard } from './port.js';

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
  const loader = new TargetLoader();
  /** One limiter per service (URL origin), with the limit it was made for. */
  const limiters = new Map<string, { limit: number; limiter: RateLimiter }>();

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

  /** Per target, when each site now drifted (or in conflict) was first seen so. */
  const firstSeen = new Map<string, Map<string, string>>();
  /**
   * Remembers the first check that saw each drifted site (a `drift` journal
   * line then, which `plan --live-since` reads) and forgets a site in sync again.
   */
  const sightings = (target: string, checked: CheckResult): Record<string, string> => {
    const seen = firstSeen.get(target) ?? new Map<string, string>();
    firstSeen.set(target, seen);
    const now = new Map<string, 'drift' | 'conflict'>();
    for (const kind of ['drift', 'conflict'] as const) for (const domain of checked.sites[kind]) now.set(domain, kind);
    for (const domain of seen.keys()) if (!now.has(domain)) seen.delete(domain);
    const at = options.now().toISOString();
    for (const [domain, kind] of now) {
      if (seen.has(domain)) continue;
      seen.set(domain, at);
      options.journal?.record({ event: 'drift', target, domain, class: kind, seen: at });
    }
    return Object.fromEntries(seen);
  };

  const get = (name: string): Open => {
    const found = open.get(name);
    if (found === undefined) throw new Error(`no such target: ${name}`);
    return found;
  };

  return {
    async reload(signal) {
      let loaded: Awaited<ReturnType<TargetLoader['load']>>;
      try {
        await options.beforeReload?.(signal);
        loaded = await loader.load(options, signal);
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Loaded;
      }
      const targets: Resolved[] = [];
      const errors = new Map<string, string>();
      try {
        for (const each of loaded.targets) {
          if (each.error !== undefined) errors.set(each.name, each.error);
          if (each.loaded === undefined) continue;
          // The key is read and the URL checked against the pinned origins here: a missing key or an
          // origin nobody pinned is the configuration's error (the last good one stays), not a failing check.
          const connection = resolveConnection({ env: options.env, cwd: options.cwd, ...each.loaded.connection });
          targets.push({ target: each.loaded, connection });
        }
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) } satisfies Loaded;
      }
      const resolved = new Map(targets.map((each) => [each.target.name, each]));
      const newLimiters = updateLimiters(targets);
      for (const [name, was] of open) {
        const fresh = resolved.get(name);
        if (fresh === undefined) {
          // Gone from the configuration: its key and passwords are no longer in use.
          releaseSecrets({ state: was.target.state, connection: was.connection });
          await was.api.close();
          open.delete(name);
          continue;
        }
        if (fresh.target.state !== was.target.state) releasePasswords(was.target.state);
        was.connection.apiKey.release(); // the same key, read again, is still held
        const moved =
          fresh.target.connectionKey !== was.target.connectionKey ||
          fresh.connection.keyId !== was.connection.keyId || // the key file or variable now holds another key
          newLimiters.has(new URL(was.api.url).origin);
        if (moved) {
          await was.api.close();
          open.delete(name);
        }
      }
      for (const each of targets) {
        const was = open.get(each.target.name);
        const { target, connection } = each;
        open.set(
          target.name,
          was === undefined ? { target, connection, api: clientFor(each) } : { ...was, target, connection },
        );
      }
      return {
        ok: true,
        targets: loaded.targets.map((each) => {
          const entry = open.get(each.name);
          const error = errors.get(each.name);
          return {
            name: each.name,
            service: serviceOf(entry?.connection.url ?? each.url),
            checkable: entry !== undefined,
            ...(error !== undefined && { error }),
          };
        }),
        reloaded: loaded.targets.filter((each) => each.reloaded).map((each) => each.name),
        changed: loaded.changed,
      };
    },

    async check(name, signal): Promise<CheckResult> {
      const entry = get(name);
      const { state, baseline } = entry.target;
      const policy = policyFromConfig(state.policy, { today: options.now().toISOString().slice(0, 10) });
      const live = await entry.api.listWebsites({ signal });
      const target = entry.target.declared ? name : undefined;
      const result = withPolicies(planSites(state.websites, live, policy, baseline), state, policy, target);
      // Only what a heal needs, only when healing: the listing itself is dropped here. A reload while
      // the check ran replaced the entry: the plan stays only for the same desired state.
      const current = open.get(name);
      if (options.heals && current?.target === entry.target) current.last = { plan: result, liveCount: live.length };
      const unsafe = unacknowledged(result.safety, { allowDelete: options.allowDelete }).length > 0;
      const classified = classify(
        result,
        state.websites.map((site) => site.domain),
        live.map((site) => canonicalDomain(site.domain)),
        unsafe,
      );
      const checked = {
        ...classified,
        differences: differencesOf(result, baseline),
        driftSince: sightings(name, classified),
      };
      if (result.policies === undefined) return checked;
      const broken = result.policies.violations;
      const policies = policyNames(state, target).map(({ name: policy, severity }) => ({
        policy,
        severity,
        violations: broken.filter((violation) => violation.policy === policy).length,
      }));
      return { ...checked, policies };
    },

    async heal(name, asked, signal, mayWrite): Promise<HealResult[]> {
      let chosen = asked;
      const entry = get(name);
      const last = entry.last;
      // The configuration changed while the check ran: its plan is not this state's; the next check's is.
      if (last === undefined)
        return asked.map((change) => ({ ...pick(change), result: 'skipped', reason: 'the configuration changed' }));
      // The gate apply enforces, again, over the whole plan: an unsafe plan heals nothing.
      if (unacknowledged(last.plan.safety, { allowDelete: options.allowDelete }).length > 0)
        return chosen.map((change) => ({ ...pick(change), result: 'skipped', reason: 'the plan is unsafe' }));
      // Never a change that breaks an error policy: apply would refuse it without a person's acknowledgement.
      const breaking = changesBreakingPolicies(last.plan, entry.target.state);
      const refused: HealResult[] = chosen
        .filter((change) => breaking.has(change.domain))
        .map((change) => ({
          ...pick(change),
          result: 'skipped',
          reason: `it breaks the error policy ${breaking.get(change.domain)}`,
        }));
      chosen = chosen.filter((change) => !breaking.has(change.domain));
      if (chosen.length === 0) return refused;
      const wanted = new Set(chosen.map((change) => `${change.action} ${change.domain}`));
      const subset: Plan = {
        ...last.plan,
        changes: last.plan.changes.filter((change) => wanted.has(`${change.action} ${change.domain}`)),
      };
      const desired = new Map(entry.target.state.websites.map((site) => [site.domain, site]));
      const journal = options.journal;
      journal?.record({ event: 'begin', target: name, mode: 'self-heal', total: subset.changes.length });
      const ids = new Map(subset.changes.map((change) => [change.id ?? 0, change.domain]));
      const guarded = mayWrite === undefined ? undefined : guardedWrites(entry.api, mayWrite, ids);
      const applied = await applyPlan(subset, desired, guarded?.api ?? entry.api, {
        parallelism: 1,
        signal,
        liveCount: last.liveCount,
        ...(journal && { journal }),
      });
      journal?.record({ event: 'end', target: name, mode: 'self-heal', counts: applied.counts });
      entry.last = undefined; // healed from this plan once: the next check plans again
      // Read back as not kept: failed, so --heal-failures stops a heal the service never keeps
      // (written again every cycle otherwise). Another writer's change is the next check's drift.
      const notKept = new Map<string, string[]>();
      for (const divergence of applied.verification.divergences) {
        if (divergence.otherWriter) continue;
        notKept.set(divergence.domain, [...(notKept.get(divergence.domain) ?? []), divergenceText(divergence)]);
      }
      return [
        ...refused,
        ...applied.changes.map((change): HealResult => {
          if (guarded?.refused.has(change.domain)) return { ...pick(change), result: 'skipped', reason: NOT_OURS };
          const lost = notKept.get(change.domain); // only applied changes are read back
          if (lost !== undefined) return { ...pick(change), result: 'failed', reason: `read back: ${lost.join('; ')}` };
          return {
            ...pick(change),
            result: change.outcome,
            ...(change.reason !== undefined && { reason: change.reason }),
          };
        }),
      ];
    },

    async close() {
      await Promise.all([...open.values()].map((entry) => entry.api.close()));
      open.clear();
    },
  };
}

/** The origin of a URL, or the text itself when it is not one (a target that never loaded). */
function serviceOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').origin;
  } catch {
    return url ?? '';
  }
}

const pick = (change: Pick<WatchedChange, 'domain' | 'action'>) => ({ domain: change.domain, action: change.action });

const NOT_OURS = 'this replica no longer holds the target';

/**
 * The client with every write asking `mayWrite` first: a refused write is
 * never sent (apply records it failed; the heal reports it skipped), and
 * neither is any after it.
 */
function guardedWrites(
  api: WebsitesApi,
  mayWrite: WriteGuard,
  domainOf: ReadonlyMap<number, string>,
): { api: WebsitesApi; refused: Set<string> } {
  const refused = new Set<string>();
  let lost = false;
  const ask = async (domain: string) => {
    lost ||= !(await mayWrite());
    if (!lost) return;
    refused.add(domain);
    throw new Error(NOT_OURS);
  };
  const writes: Partial<WebsitesApi> = {
    createWebsite: async (desired, options) => {
      await ask(desired.domain);
      return api.createWebsite(desired, options);
    },
    updateWebsite: async (id, update, options) => {
      await ask(domainOf.get(id) ?? '');
      return api.updateWebsite(id, update, options);
    },
    deleteWebsite: async (id, options) => {
      await ask(domainOf.get(id) ?? '');
      return api.deleteWebsite(id, options);
    },
  };
  const guarded = new Proxy(api, {
    get(target, property) {
      if (property in writes) return writes[property as keyof typeof writes];
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value; // the client's methods use its private fields
    },
  });
  return { api: guarded, refused };
}
