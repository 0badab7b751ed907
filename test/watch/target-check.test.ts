// One step of watch for one target (target-check.ts), through a scripted port: what a check
// records (its duration, state, metrics, log, alerts) and what may follow it. The heal itself, and
// the same decisions over a real server, are in watch-heal*.test.ts.
import { describe, expect, it } from 'vitest';
import { MemoryDriftHistory } from '../../src/watch/drift-history.js';
import type { HealPolicy } from '../../src/watch/heal-policy.js';
import type { Fields, Level } from '../../src/watch/log.js';
import type { WatchMetrics } from '../../src/watch/metrics.js';
import type { CheckResult, HealResult, WatchedChange, WatchPort } from '../../src/watch/port.js';
import { newTargetState } from '../../src/watch/status.js';
import { checkAndHeal, type StepContext } from '../../src/watch/target-check.js';
import { manualClock } from '../helpers/manual-clock.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const drift: WatchedChange = { domain: 'a.example', action: 'update', class: 'drift' };

function checked(changes: WatchedChange[]): CheckResult {
  const count = (kind: WatchedChange['class']) => changes.filter((change) => change.class === kind).length;
  const sites = (kind: WatchedChange['class']) => changes.filter((c) => c.class === kind).map((c) => c.domain);
  return {
    counts: { in_sync: 3, pending: count('pending'), drift: count('drift'), conflict: count('conflict'), unmanaged: 0 },
    sites: { pending: sites('pending'), drift: sites('drift'), conflict: sites('conflict'), unmanaged: [] },
    changes,
    unsafe: false,
  };
}

/** A step over a scripted port: `checks` answers (or throws) in turn, taking `checkMs` on the clock; `heals` answers each heal. */
function scripted(options: {
  checks: (CheckResult | Error)[];
  heals?: HealResult['result'][][];
  checkMs?: number;
  heal?: Partial<HealPolicy>;
}) {
  const clock = manualClock(10_000);
  const logs: [Level, string, Fields | undefined][] = [];
  const alerts: [string, { active: boolean; domains?: readonly string[]; reason?: string }][] = [];
  const healCalls: string[][] = [];
  const recorded: string[] = [];
  const port = {
    async check() {
      clock.advance(options.checkMs ?? 0);
      const next = options.checks.shift();
      if (next === undefined) throw new Error('no check scripted');
      if (next instanceof Error) throw next;
      return next;
    },
    async heal(_target: string, changes: readonly WatchedChange[]) {
      healCalls.push(changes.map((change) => change.domain));
      const results = options.heals?.shift() ?? changes.map(() => 'applied' as const);
      return changes.map((change, index) => ({
        domain: change.domain,
        action: change.action,
        result: results[index] ?? 'applied',
      }));
    },
  } as unknown as WatchPort;
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      void recorded.push(`${name} ${JSON.stringify(args)}`);
  const metrics = new Proxy({} as WatchMetrics, { get: (_, name) => record(String(name)) });
  const context: StepContext = {
    port,
    clock,
    now: () => NOW,
    metrics,
    log: (level, message, fields) => void logs.push([level, message, fields]),
    driftHistory: new MemoryDriftHistory(),
    heal: { mode: 'drift', maxPerCycle: 10, allowDelete: [], windows: [], maxFailures: 2, ...options.heal },
    alert: async (_target, kind, condition) => void alerts.push([kind, condition]),
    hard: new AbortController().signal,
    stopping: new AbortController().signal,
  };
  const state = newTargetState('http://service.test');
  const step = (mayHeal = true) => checkAndHeal(context, 'prod', state, { mayHeal });
  return { step, state, logs, alerts, healCalls, recorded };
}

describe('one step of watch', () => {
  it('records a failed check with how long it took, logs and alerts its reason', async () => {
    const run = scripted({ checks: [new Error('HTTP 503 from the service')], checkMs: 2_500 });
    await run.step();
    expect(run.state.check).toEqual({ at: NOW, seconds: 2.5, error: 'HTTP 503 from the service' });
    expect(run.recorded).toEqual(['failed ["prod",2.5]']);
    expect(run.logs).toEqual([['warn', 'check failed', { target: 'prod', error: 'HTTP 503 from the service' }]]);
    expect(run.alerts).toEqual([['check_failing', { active: true, reason: 'HTTP 503 from the service' }]]);
    expect(run.healCalls).toEqual([]);
  });

  it('records a successful check with how long it took and its counts', async () => {
    const run = scripted({ checks: [checked([drift])], checkMs: 1_500 });
    await run.step(false);
    expect(run.state.check).toEqual({ at: NOW, seconds: 1.5 });
    expect(run.recorded).toContain(
      `checked ["prod",{"in_sync":3,"pending":0,"drift":1,"conflict":0,"unmanaged":0},${NOW},1.5]`,
    );
    expect(run.logs).toEqual([
      [
        'info',
        'checked',
        { target: 'prod', seconds: 1.5, in_sync: 3, pending: 0, drift: 1, conflict: 0, unmanaged: 0 },
      ],
    ]);
  });

  it('only looks on the first check after taking a target over', async () => {
    const run = scripted({ checks: [checked([drift]), checked([drift])] });
    run.state.takenOver = true;
    await run.step(false);
    expect(run.healCalls).toEqual([]);
    expect(run.state.takenOver).toBeUndefined();
    await run.step(true);
    expect(run.healCalls).toEqual([['a.example']]);
  });

  it('asks the port nothing when nothing may be healed, and keeps the last heal', async () => {
    const conflict: WatchedChange = { domain: 'b.example', action: 'update', class: 'conflict' };
    const run = scripted({ checks: [checked([drift]), checked([conflict])], heals: [['failed']] });
    await run.step();
    const last = run.state.heal.last;
    expect(run.state.heal.failures).toBe(1);
    await run.step();
    expect(run.healCalls).toEqual([['a.example']]);
    expect(run.state.heal.last).toBe(last);
    expect(run.state.heal.failures).toBe(1);
  });

  it('counts failed heals in a row only: a heal that succeeds starts the count again', async () => {
    const run = scripted({
      checks: [1, 2, 3, 4].map(() => checked([drift])),
      heals: [['failed'], ['applied'], ['failed'], ['applied']],
    });
    for (let i = 0; i < 4; i++) await run.step();
    expect(run.state.heal).toMatchObject({ failures: 0 });
    expect(run.state.heal.stopped).toBeFalsy();
    expect(run.healCalls).toHaveLength(4);
    expect(
      run.logs
        .filter(([, message]) => message.startsWith('self-heal'))
        .map(([level, message]) => `${level} ${message}`),
    ).toEqual(['warn self-heal failed', 'info self-heal applied', 'warn self-heal failed', 'info self-heal applied']);
  });

  it('stops healing after --max-heal-failures failures in a row, says so and alerts', async () => {
    const run = scripted({ checks: [1, 2, 3].map(() => checked([drift])), heals: [['failed'], ['failed']] });
    for (let i = 0; i < 3; i++) await run.step();
    expect(run.state.heal).toMatchObject({ failures: 2, stopped: true });
    expect(run.healCalls).toHaveLength(2);
    expect(run.logs).toContainEqual([
      'error',
      'self-heal stopped after repeated failures',
      { target: 'prod', failures: 2 },
    ]);
    expect(run.alerts).toContainEqual(['heal_stopped', { active: true, reason: '2 failed heals in a row' }]);
  });
});
