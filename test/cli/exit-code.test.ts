/** Every command's exit code comes from exitCodeFor: the table of docs/exit-codes.md. */
import { describe, expect, it } from 'vitest';
import { type CommandOutcome, exitCodeFor, mostSevere, terraformPlanCode } from '../../src/cli/exit-code.js';
import type { ApplyResult } from '../../src/model/apply-result.js';
import { SitesyncError } from '../../src/model/errors.js';
import type { Plan } from '../../src/model/plan.js';
import { plan } from '../../src/plan/index.js';
import { desired, live, policy } from '../plan/builders.js';

const noChanges = plan([desired('a.com')], [live(1, 'a.com')], policy());
const changes = plan([desired('a.com', { favorite: true })], [live(1, 'a.com')], policy());
const unsafe: Plan = plan([], [live(1, 'a.com'), live(2, 'b.com')], policy({ prune: true }));
const baseline = (websites: ReturnType<typeof desired>[], prune = false) => ({
  ref: { ref: 'sitesync-applied', commit: 'c'.repeat(40), source: 'option' as const },
  websites,
  policy: policy({ prune }),
});
/** Configuration changed since the baseline, live did not: pending only. */
const pending = plan(
  [desired('a.com', { favorite: true })],
  [live(1, 'a.com')],
  policy(),
  baseline([desired('a.com')]),
);
/** Configuration unchanged since the baseline, live moved: drift. */
const drift = plan([desired('a.com')], [live(1, 'a.com', { favorite: true })], policy(), baseline([desired('a.com')]));
/** Both moved, differently: conflict. */
const conflict = plan(
  [desired('a.com', { privacy: 'public' })],
  [live(1, 'a.com', { privacy: 'password' }, { hasPassword: true })],
  policy(),
  baseline([desired('a.com', { privacy: 'private' })]),
);
const unlistedDrift = plan([desired('a.com')], [live(1, 'a.com'), live(2, 'b.com')], policy({ unlistedIsDrift: true }));
const unsafeDrift = plan([], [live(1, 'a.com'), live(2, 'b.com')], policy({ prune: true }), baseline([], true));

function result(overrides: Partial<ApplyResult> = {}): ApplyResult {
  return {
    changes: [],
    counts: { applied: 1, failed: 0, skipped: 0, total: 1 },
    interrupted: false,
    verification: { status: 'checked', divergences: [] },
    requests: 2,
    elapsedMs: 10,
    ...overrides,
  };
}

describe('exitCodeFor', () => {
  it.each<[string, CommandOutcome, number]>([
    ['done', { kind: 'done' }, 0],
    ['an export holding every website as live', { kind: 'exported', incomplete: false }, 0],
    ['an export with websites not held as live', { kind: 'exported', incomplete: true }, 2],
    ['valid configuration', { kind: 'validated', valid: true }, 0],
    ['invalid configuration', { kind: 'validated', valid: false }, 1],
    ['plan without changes, --detailed-exitcode', { kind: 'planned', plan: noChanges, detailedExitcode: true }, 0],
    ['plan with changes', { kind: 'planned', plan: changes, detailedExitcode: false }, 0],
    ['plan with changes, --detailed-exitcode', { kind: 'planned', plan: changes, detailedExitcode: true }, 2],
    ['unsafe plan', { kind: 'planned', plan: unsafe, detailedExitcode: true }, 3],
    ['baseline: only pending, --detailed-exitcode', { kind: 'planned', plan: pending, detailedExitcode: true }, 2],
    ['baseline: drift, --detailed-exitcode', { kind: 'planned', plan: drift, detailedExitcode: true }, 4],
    ['baseline: conflict, --detailed-exitcode', { kind: 'planned', plan: conflict, detailedExitcode: true }, 4],
    ['baseline: drift without --detailed-exitcode', { kind: 'planned', plan: drift, detailedExitcode: false }, 0],
    ['--unlisted-is-drift, no changes', { kind: 'planned', plan: unlistedDrift, detailedExitcode: true }, 4],
    ['baseline: unsafe drift (3 wins)', { kind: 'planned', plan: unsafeDrift, detailedExitcode: true }, 3],
    ['applied', { kind: 'applied', result: result() }, 0],
    [
      'applied with a failure',
      { kind: 'applied', result: result({ counts: { applied: 0, failed: 1, skipped: 0, total: 1 } }) },
      1,
    ],
    [
      'applied, read-back unavailable',
      { kind: 'applied', result: result({ verification: { status: 'unavailable', divergences: [] } }) },
      1,
    ],
    ['apply interrupted', { kind: 'applied', result: result({ interrupted: true }) }, 130],
    ['refused: unsafe', { kind: 'refused', code: 'unsafe_plan' }, 3],
    ['refused: cancelled', { kind: 'refused', code: 'cancelled' }, 1],
    ['refused: interrupted', { kind: 'refused', code: 'interrupted' }, 130],
    ['stale plan', { kind: 'failed', error: new SitesyncError('stale_plan', 'x') }, 1],
    ['interrupted error', { kind: 'failed', error: new SitesyncError('interrupted', 'x') }, 130],
    ['the abort reason', { kind: 'failed', error: new Error('SIGINT'), aborted: true }, 130],
    ['a bug', { kind: 'failed', error: new TypeError('x') }, 1],
    ['help', { kind: 'usage', helpShown: true }, 0],
    ['bad command line', { kind: 'usage', helpShown: false }, 1],
  ])('%s', (_name, outcome, code) => {
    expect(exitCodeFor(outcome)).toBe(code);
  });

  it('the classified plans of the table are what their names say', () => {
    expect(pending.summary).toMatchObject({ pending: 1, drift: 0, conflict: 0 });
    expect(drift.summary).toMatchObject({ pending: 0, drift: 1, conflict: 0 });
    expect(conflict.summary).toMatchObject({ pending: 0, drift: 0, conflict: 1 });
    expect(unlistedDrift.changes).toEqual([]);
    expect(unsafeDrift.summary.drift).toBe(2);
    expect(unsafeDrift.safety).not.toEqual([]);
  });

  it('the unsafe plan of the table is unsafe', () => {
    expect(unsafe.safety.length).toBeGreaterThan(0);
  });
});

describe('mostSevere: the exit code of a run over several targets', () => {
  it.each([
    [[], 0],
    [[0, 0], 0],
    [[0, 2], 2],
    [[2, 3, 0], 3],
    [[3, 1, 2], 1],
    [[0, 130, 1], 130],
    // Drift (4) ranks between an unsafe plan (3) and changes (2).
    [[2, 4, 0], 4],
    [[4, 2], 4],
    [[4, 3], 3],
    [[1, 4], 1],
    // An unknown code ranks as an error, above 3.
    [[3, 7], 7],
  ])('%j → %i', (codes, expected) => {
    expect(mostSevere(codes)).toBe(expected);
  });
});

describe('terraformPlanCode: plan --exit-codes terraform', () => {
  it('keeps 0, 1 and 130; changes, drift and an unsafe plan are 2 with --detailed-exitcode, 0 without', () => {
    expect([0, 1, 2, 3, 4, 130].map((code) => terraformPlanCode(code, true))).toEqual([0, 1, 2, 2, 2, 130]);
    expect([0, 1, 2, 3, 4, 130].map((code) => terraformPlanCode(code, false))).toEqual([0, 1, 0, 0, 0, 130]);
  });
});
