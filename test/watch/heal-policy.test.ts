/** Which changes self-heal may make, pure (heal-policy.ts): classes by mode, exact deletes, the cap, the window. */
import { describe, expect, it } from 'vitest';
import { type HealPolicy, healable } from '../../src/watch/heal-policy.js';
import type { WatchedChange } from '../../src/watch/port.js';
import { parseWindow, type Window } from '../../src/watch/window.js';

const MONDAY_NOON = Date.parse('2026-07-06T12:00:00Z');
const policy = (over: Partial<HealPolicy> = {}): HealPolicy => ({
  mode: 'drift',
  maxPerCycle: 10,
  allowDelete: [],
  windows: [],
  maxFailures: 3,
  ...over,
});
const CHANGES: WatchedChange[] = [
  { domain: 'd.example', action: 'update', class: 'drift' },
  { domain: 'b.example', action: 'create', class: 'pending' },
  { domain: 'c.example', action: 'update', class: 'conflict' },
  { domain: 'a.example', action: 'create', class: 'drift' },
  { domain: 'e.example', action: 'delete', class: 'drift' },
];
const domains = (chosen: WatchedChange[]) => chosen.map((change) => change.domain);

describe('healable', () => {
  it('takes the classes of its mode, in domain order; a conflict only with all', () => {
    expect(domains(healable(CHANGES, policy(), MONDAY_NOON))).toEqual(['a.example', 'd.example']);
    expect(domains(healable(CHANGES, policy({ mode: 'pending' }), MONDAY_NOON))).toEqual(['b.example']);
    expect(domains(healable(CHANGES, policy({ mode: 'all' }), MONDAY_NOON))).toEqual([
      'a.example',
      'b.example',
      'c.example',
      'd.example',
    ]);
  });

  it('deletes only a domain named exactly, and keeps to --max-heal', () => {
    const chosen = healable(CHANGES, policy({ allowDelete: ['e.example'] }), MONDAY_NOON);
    expect(domains(chosen)).toEqual(['a.example', 'd.example', 'e.example']);
    expect(domains(healable(CHANGES, policy({ allowDelete: ['example'] }), MONDAY_NOON))).not.toContain('e.example');
    expect(domains(healable(CHANGES, policy({ maxPerCycle: 1 }), MONDAY_NOON))).toEqual(['a.example']);
  });

  it('heals inside any of its windows only', () => {
    const window = (text: string) => parseWindow(text) as Window;
    const closed = policy({ windows: [window('Sat 00:00-24:00'), window('Mon 13:00-14:00')] });
    expect(healable(CHANGES, closed, MONDAY_NOON)).toEqual([]);
    const open = policy({ windows: [window('Sat 00:00-24:00'), window('Mon 12:00-13:00')] });
    expect(domains(healable(CHANGES, open, MONDAY_NOON))).toEqual(['a.example', 'd.example']);
  });
});
