/**
 * The check gate (--concurrency): at most N checks at once, never two of one
 * service at once, started in arrival order; a check stopped before it starts
 * never runs. Driven by promises the test resolves, not by time.
 */
import { describe, expect, it } from 'vitest';
import { CheckGate } from '../../src/watch/check-gate.js';

/** A check that runs until the test ends it; `log` records its start. */
function controlled(log: string[], name: string) {
  let end = () => {};
  const ended = new Promise<void>((resolve) => (end = resolve));
  const work = async () => {
    log.push(name);
    await ended;
    return name;
  };
  return { work, end: () => end() };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CheckGate', () => {
  it('runs at most N at once and one per service, in arrival order', async () => {
    const gate = new CheckGate(2);
    const started: string[] = [];
    const checks = [
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
      ['c1', 'c'],
    ].map(([name, service]) => {
      const check = controlled(started, name!);
      return { ...check, done: gate.run(service!, check.work) };
    });
    await turn();
    expect(started).toEqual(['a1', 'b1']); // a2 waits for a1 (same service), c1 for a slot
    expect([gate.running, gate.waiting]).toEqual([2, 2]);
    checks[2]!.end(); // b1 ends: c1 takes its slot, a2 still waits for a1
    await turn();
    expect(started).toEqual(['a1', 'b1', 'c1']);
    checks[0]!.end();
    await turn();
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2']);
    for (const check of checks) check.end();
    expect(await Promise.all(checks.map((check) => check.done))).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('never starts a check whose skip says so by then, and frees its slot', async () => {
    const gate = new CheckGate(1);
    const started: string[] = [];
    const first = controlled(started, 'first');
    let stopping = false;
    const running = gate.run('a', first.work);
    const skipped = gate.run('b', controlled(started, 'second').work, () => stopping);
    stopping = true;
    first.end();
    expect(await running).toBe('first');
    expect(await skipped).toBeUndefined();
    expect(started).toEqual(['first']);
    expect(gate.running).toBe(0);
  });

  it('refuses a concurrency below 1', () => {
    expect(() => new CheckGate(0)).toThrow(/concurrency must be a whole number ≥ 1/);
  });
});
