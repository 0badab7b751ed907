// The reconcile loop (watcher.ts) over a scripted port, on the virtual clock of watch's tests: when
// each check starts, what a reload (SIGHUP) and a second stop (SIGTERM twice) do, and that a target
// taken over from another replica is only looked at first. What the port does is tested over the
// reference server in watch-*.test.ts; here the port only records when it is asked.
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertDocument } from '../../src/watch/alerts.js';
import { singleProcess } from '../../src/watch/coordination/single.js';
import type { Fields, Level } from '../../src/watch/log.js';
import type { CheckResult, Loaded, WatchedTarget, WatchPort } from '../../src/watch/port.js';
import { PrometheusMetrics } from '../../src/watch/prometheus.js';
import { Watcher, type WatchOptions } from '../../src/watch/watcher.js';
import { MINUTE, watchClock } from './support.js';

const START = Date.parse('2026-11-28T12:00:00Z');
const TARGETS = ['a', 'b', 'c'];

function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Holds the configuration's second read until `release`; `reached` resolves when it begins. */
function secondReadHeld() {
  const reached = deferred();
  const released = deferred();
  const holdReload = (count: number) => {
    if (count !== 2) return undefined;
    reached.resolve();
    return released.promise;
  };
  return { holdReload, reached: reached.promise, release: released.resolve };
}

/** A check that finds one drifted site. */
function drifted(): CheckResult {
  return {
    counts: { in_sync: 1, pending: 0, drift: 1, conflict: 0, unmanaged: 0 },
    sites: { pending: [], drift: ['a.example'], conflict: [], unmanaged: [] },
    changes: [{ domain: 'a.example', action: 'update', class: 'drift' }],
    unsafe: false,
  };
}

/**
 * A watch of TARGETS (one service each, so they never wait for each other) over a port that
 * records each check's target and time, and each heal; `holdCheck` makes a target's check wait
 * until the promise it returns is settled (given the check's signal).
 */
function scriptedWatch(options: {
  holdCheck?: (target: string, signal: AbortSignal) => Promise<void> | undefined;
  holdReload?: (count: number) => Promise<void> | undefined;
  /** The configuration the nth read finds (undefined: TARGETS, all valid). */
  configuration?: (count: number) => Loaded | undefined;
  extra?: Partial<WatchOptions>;
}) {
  const clock = watchClock(START);
  const checks: [string, number][] = [];
  const heals: [string, number][] = [];
  const logs: [Level, string, Fields | undefined][] = [];
  /** Reads and checks in the order they were asked, with their time: `reload@0`, `a@20000`. */
  const timeline: string[] = [];
  let reloads = 0;
  const targets: WatchedTarget[] = TARGETS.map((name) => ({ name, service: `http://${name}.test`, checkable: true }));
  const port: WatchPort = {
    async reload() {
      reloads++;
      timeline.push(`reload@${clock.now() - START}`);
      await options.holdReload?.(reloads);
      return (
        options.configuration?.(reloads) ?? {
          ok: true,
          targets,
          reloaded: reloads === 1 ? TARGETS : [],
          changed: reloads === 1,
        }
      );
    },
    async check(target, signal) {
      checks.push([target, clock.now() - START]);
      timeline.push(`${target}@${clock.now() - START}`);
      await options.holdCheck?.(target, signal);
      return drifted();
    },
    async heal(target, changes) {
      heals.push([target, clock.now() - START]);
      return changes.map(({ domain, action }) => ({ domain, action, result: 'applied' }));
    },
    close: async () => {},
  };
  const alerts: AlertDocument[] = [];
  const watcher = new Watcher({
    port,
    clock,
    now: () => clock.now(),
    intervalMs: MINUTE,
    renotifyMs: 60 * MINUTE,
    metrics: new PrometheusMetrics(),
    notify: (document) => void alerts.push(document),
    log: (level, message, fields) => void logs.push([level, message, fields]),
    ...options.extra,
  });
  clock.attach(watcher);
  return { watcher, checks, heals, logs, alerts, timeline, reloads: () => reloads };
}

const running: Watcher[] = [];
afterEach(() => {
  for (const watcher of running.splice(0)) {
    watcher.stop();
    watcher.stop();
  }
});

/** Waits until `condition` holds, for a bounded number of event-loop turns (never on the clock): the assertions that follow tell what went wrong. */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the reconcile loop', () => {
  it('spreads a cycle’s checks evenly over the interval', async () => {
    const { watcher, checks, logs } = scriptedWatch({});
    await watcher.run(2);
    expect(checks).toEqual([
      ['a', 0],
      ['b', 20_000],
      ['c', 40_000],
      ['a', 60_000],
      ['b', 80_000],
      ['c', 100_000],
    ]);
    // A cycle is checked when its last check ends: 40 s after it started, on the virtual clock.
    expect(logs.filter(([, message]) => message === 'cycle checked').map(([, , fields]) => fields)).toEqual([
      { cycle: 1, checks: 3, seconds: 40 },
      { cycle: 2, checks: 3, seconds: 40 },
    ]);
  });

  it('on a reload during a cycle, stops spreading it, reads the configuration at once and checks every target at once', async () => {
    const aStarted = deferred();
    const releaseA = deferred();
    const { watcher, checks, logs, reloads } = scriptedWatch({
      holdCheck: (target) => {
        if (target !== 'a') return undefined;
        aStarted.resolve();
        return releaseA.promise;
      },
    });
    running.push(watcher);
    const run = watcher.run();
    await aStarted.promise; // time stands still while a's check runs
    watcher.reload();
    await until(() => checks.some(([target]) => target === 'c'));
    // The cut cycle's last two targets were checked at once, with the configuration read again,
    // while a's check was still running (skipped, not started twice).
    expect(checks).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    expect(reloads()).toBe(2);
    expect(logs).toContainEqual(['warn', 'check skipped: the previous one is still running', { target: 'a' }]);
    releaseA.resolve();
    watcher.stop();
    await run;
  });

  it('on a reload asked while the configuration is being read, reads it again and checks every target at once', async () => {
    const held = secondReadHeld();
    const { watcher, timeline } = scriptedWatch({ holdReload: held.holdReload });
    running.push(watcher);
    const run = watcher.run();
    await held.reached;
    watcher.reload();
    held.release();
    await until(() => timeline.length >= 13);
    watcher.stop();
    await run;
    // Read a third time, after the SIGHUP, before any check: the second read may have begun before
    // the edit it announces. The cycle after is spread again.
    expect(timeline.slice(0, 13)).toEqual([
      'reload@0',
      'a@0',
      'b@20000',
      'c@40000',
      'reload@60000',
      'reload@60000',
      'a@60000',
      'b@60000',
      'c@60000',
      'reload@120000',
      'a@120000',
      'b@140000',
      'c@160000',
    ]);
  });

  it('starts no check once stopped while the configuration is being read', async () => {
    const held = secondReadHeld();
    const { watcher, checks, logs } = scriptedWatch({ holdReload: held.holdReload });
    const run = watcher.run();
    await held.reached;
    watcher.stop();
    held.release();
    await run;
    expect(checks.map(([target]) => target)).toEqual(TARGETS);
    expect(logs.filter(([, message]) => message === 'cycle checked').map(([, , fields]) => fields?.cycle)).toEqual([1]);
  });

  it('lets the checks in flight finish on the first stop, and cuts them short on the second', async () => {
    const started = deferred();
    let checkSignal: AbortSignal | undefined;
    const { watcher, logs } = scriptedWatch({
      holdCheck: (target, signal) => {
        if (target !== 'a') return undefined;
        checkSignal = signal;
        started.resolve();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    const run = watcher.run();
    await started.promise;
    watcher.stop();
    expect(checkSignal?.aborted).toBe(false);
    let ended = false;
    void run.then(() => {
      ended = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    watcher.stop();
    expect(checkSignal?.aborted).toBe(true);
    expect(checkSignal?.reason).toMatchObject({ message: 'stopped' });
    await run;
    expect(logs.find(([, message]) => message === 'check failed')?.[2]).toMatchObject({
      target: 'a',
      error: 'stopped',
    });
  });

  it('only looks at a target taken over from another replica, then heals it again', async () => {
    const single = singleProcess();
    let claims = 0;
    const coordination = {
      ...single,
      // The second cycle finds `a` just taken from a replica that left.
      claim: async () => {
        claims++;
        return { owned: new Set(['a']), taken: new Set(claims === 2 ? ['a'] : []), replicas: claims === 1 ? 2 : 1 };
      },
    };
    const { watcher, checks, heals } = scriptedWatch({
      extra: {
        coordination,
        heal: { mode: 'drift', maxPerCycle: 10, allowDelete: [], windows: [], maxFailures: 3 },
      },
    });
    await watcher.run(3);
    expect(checks).toEqual([
      ['a', 0],
      ['a', 60_000],
      ['a', 120_000],
    ]);
    expect(heals).toEqual([
      ['a', 0],
      ['a', 120_000],
    ]);
  });
});

/** The targets a, b and c on their services, with `also` over each (an error, not checkable). */
function targetsWith(also: Record<string, Partial<WatchedTarget>> = {}): WatchedTarget[] {
  return TARGETS.map((name) => ({ name, service: `http://${name}.test`, checkable: true, ...also[name] }));
}

const loadedWith = (targets: WatchedTarget[]): Loaded => ({ ok: true, targets, reloaded: [], changed: false });

describe('the configuration, read each cycle', () => {
  it('logs a bad configuration once while it stays the same, checks against the last good one, and says when it loads again', async () => {
    const error = 'websites.yaml:3:1: unknown key "webistes"';
    const { watcher, logs, checks } = scriptedWatch({
      configuration: (count) => (count === 2 || count === 3 ? { ok: false, error } : undefined),
    });
    await watcher.run(4);
    expect(logs.filter(([level]) => level === 'error')).toEqual([
      ['error', 'configuration invalid: keeping the last good configuration', { error }],
    ]);
    expect(logs.filter(([, message]) => message === 'configuration loaded')).toEqual([
      ['info', 'configuration loaded', { targets: 3 }],
      ['info', 'configuration loaded', { targets: 3 }],
    ]);
    expect(checks).toHaveLength(12);
    expect(watcher.status().config).toEqual({ ok: true });
  });

  it('logs a target whose own files are invalid once, with its error, and says when they are valid again', async () => {
    const error = 'b.yaml:2:3: privacy: must be public, private or password';
    const { watcher, logs, checks } = scriptedWatch({
      configuration: (count) =>
        loadedWith(
          count <= 2
            ? targetsWith({ b: { error }, c: { error, checkable: false } })
            : targetsWith({ c: { error, checkable: false } }),
        ),
    });
    await watcher.run(3);
    expect(logs.filter(([, message]) => message.startsWith('target configuration'))).toEqual([
      ['error', 'target configuration invalid: checking against its last good state', { target: 'b', error }],
      ['error', 'target configuration invalid: not checked until it validates', { target: 'c', error }],
      ['info', 'target configuration valid again', { target: 'b' }],
    ]);
    expect(checks.filter(([target]) => target === 'c')).toEqual([]);
    expect(watcher.status().targets.map((target) => [target.target, target.config.ok])).toEqual([
      ['a', true],
      ['b', true],
      ['c', false],
    ]);
  });

  it('forgets a target that leaves the configuration: back later, it starts anew', async () => {
    const cStarted = deferred();
    let cChecks = 0;
    const { watcher, checks } = scriptedWatch({
      configuration: (count) =>
        count === 2 ? loadedWith(targetsWith().filter(({ name }) => name !== 'c')) : undefined,
      // c's first check after its return is held: its state is looked at before it ends.
      holdCheck: (target, signal) => {
        if (target !== 'c' || ++cChecks !== 2) return undefined;
        cStarted.resolve();
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    running.push(watcher);
    void watcher.run();
    await cStarted.promise;
    expect(checks.filter(([target]) => target === 'c')).toEqual([
      ['c', 40_000],
      ['c', 160_000],
    ]);
    const c = watcher.status().targets.find((target) => target.target === 'c');
    expect(c?.lastCheck).toBeUndefined();
    expect(c?.drift24h.counts.every((count) => count === null)).toBe(true);
  });

  it('links each alert to its target’s page when a public URL is set', async () => {
    const { watcher, alerts } = scriptedWatch({
      holdCheck: (target) => (target === 'b' ? Promise.reject(new Error('connection refused')) : undefined),
      extra: { linkOf: (target) => `https://watch.example/t/${target}` },
    });
    await watcher.run(1);
    const drift = alerts.find((document) => document.target === 'a' && document.alert === 'drift');
    expect(drift?.url).toBe('https://watch.example/t/a#drift');
    expect(drift?.text.endsWith(' https://watch.example/t/a#drift')).toBe(true);
    // The page's drift and conflict sections have anchors; a failing check is the page itself.
    const failing = alerts.find((document) => document.target === 'b' && document.alert === 'check_failing');
    expect(failing?.url).toBe('https://watch.example/t/b');
  });
});

describe('replicas sharing the targets', () => {
  it('says when this replica’s share changes, and forgets the metrics of a target given away', async () => {
    const single = singleProcess();
    const shares = [
      { owned: ['a', 'b'], replicas: 1 },
      { owned: ['a'], replicas: 2 }, // a second replica took b
      { owned: ['a'], replicas: 2 },
    ];
    let claims = 0;
    const coordination = {
      ...single,
      claim: async () => {
        const share = shares[claims++] ?? { owned: ['a'], replicas: 2 };
        return { owned: new Set(share.owned), taken: new Set<string>(), replicas: share.replicas };
      },
    };
    const metrics = new PrometheusMetrics();
    const { watcher, logs } = scriptedWatch({ extra: { coordination, metrics } });
    await watcher.run(3);
    expect(logs.filter(([, message]) => message === 'targets claimed').map(([, , fields]) => fields)).toEqual([
      { replica: single.id, replicas: 1, owned: 2, taken: 0, given: 0 },
      { replica: single.id, replicas: 2, owned: 1, taken: 0, given: 1 },
    ]);
    const text = await metrics.text();
    expect(text).toContain('target="a"');
    expect(text).not.toContain('target="b"');
  });
});
