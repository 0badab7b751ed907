/** A plan as watch reports it, pure (classify.ts): every site in one class, sorted. */
import { describe, expect, it } from 'vitest';
import type { Change, Plan } from '../../src/model/plan.js';
import { classify } from '../../src/watch/classify.js';

const change = (domain: string, action: Change['action'], cls?: Change['class']) =>
  ({ domain, action, ...(cls !== undefined && { class: cls }) }) as Change;
const planOf = (changes: Change[], unlisted: string[] = []) =>
  ({
    changes,
    notes: unlisted.length === 0 ? [] : [{ kind: 'unlisted_drift', domains: unlisted }],
  }) as unknown as Plan;

describe('classify', () => {
  it('keeps each change its baseline class and places every other site once', () => {
    const plan = planOf(
      [
        change('z.example', 'update', 'pending'),
        change('c.example', 'update', 'conflict'),
        change('d.example', 'delete', 'drift'),
      ],
      ['u.example'],
    );
    const configured = ['z.example', 'c.example', 'b.example', 'a.example'];
    const live = ['c.example', 'd.example', 'u.example', 'x.example', 'a.example', 'b.example', 'z.example'];
    const result = classify(plan, configured, live, false);
    // In sync: counted, not named (a check keeps only the sites that are not).
    expect(result.counts).toEqual({ in_sync: 2, pending: 1, drift: 2, conflict: 1, unmanaged: 1 });
    expect(result.sites).toEqual({
      pending: ['z.example'],
      drift: ['d.example', 'u.example'],
      conflict: ['c.example'],
      unmanaged: ['x.example'],
    });
    expect(result.changes).toEqual([
      { domain: 'z.example', action: 'update', class: 'pending' },
      { domain: 'c.example', action: 'update', class: 'conflict' },
      { domain: 'd.example', action: 'delete', class: 'drift' },
    ]);
    expect(result.unsafe).toBe(false);
  });

  it('places only the sites of an unlisted_drift note as drift: a protected live site stays unmanaged', () => {
    const plan = planOf([], ['u.example']);
    plan.notes.push({ kind: 'protected', domains: ['p.example'] });
    const result = classify(plan, ['a.example'], ['a.example', 'p.example', 'u.example'], false);
    expect(result.counts.in_sync).toBe(1);
    expect(result.sites).toMatchObject({ drift: ['u.example'], unmanaged: ['p.example'] });
  });

  it('without a baseline every change is drift', () => {
    const result = classify(planOf([change('a.example', 'create')]), ['a.example'], [], true);
    expect(result.changes).toEqual([{ domain: 'a.example', action: 'create', class: 'drift' }]);
    expect(result.sites.drift).toEqual(['a.example']);
    expect(result.counts.in_sync).toBe(0);
    expect(result.unsafe).toBe(true);
  });
});
