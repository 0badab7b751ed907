/**
 * Re-derivation names every place where a saved plan says something other
 * than what the planner makes of the configuration and the live state the file
 * records: apply refuses the file when the list is not empty, so an edit that
 * goes unnamed would be applied (saved-plan.test.ts covers the basics).
 */
import { describe, expect, it } from 'vitest';
import type { Change, UpdateChange } from '../../src/model/plan.js';
import { plan } from '../../src/plan/planner.js';
import { rederive } from '../../src/plan/rederive.js';
import { createSavedPlan, parseSavedPlan, type SavedPlan, serializeSavedPlan } from '../../src/plan/saved-plan.js';
import { desired, live, policy } from './builders.js';

// a.com: two fields change, one drifted field is ignored; b.com: one field; new.com created; gone.com pruned.
const desiredSites = [
  desired('a.com', { email: true, favorite: true, excludeBots: false }, { ignoreChanges: ['excludeBots'] }),
  desired('b.com', { email: true }),
  desired('new.com'),
];
const liveSites = [live(1, 'a.com', { excludeBots: true }), live(2, 'b.com'), live(3, 'gone.com')];
const configPolicy = policy({ prune: true });

const savedFor = (sites = desiredSites, current = liveSites, made = configPolicy): SavedPlan =>
  createSavedPlan({
    target: 'https://analytics.example.com',
    configDigest: 'sha256:abc',
    keyId: '0123456789abcdef',
    policy: made,
    plan: plan(sites, current, made),
    live: current,
  });
const saved = savedFor();

/** The file as written, read back and edited by hand. */
function tampered(edit: (file: SavedPlan, change: (domain: string) => Record<string, unknown>) => void): SavedPlan {
  const file = parseSavedPlan(serializeSavedPlan(saved), 'plan.json');
  const change = (domain: string) =>
    file.plan.changes.find((each) => each.domain === domain) as unknown as Record<string, unknown>;
  edit(file, change);
  return file;
}

/** A change's field list (`fields` or `ignored`) as editable records; the tests edit its first entry. */
const fieldsOf = (change: Record<string, unknown>, key = 'fields') =>
  change[key] as [Record<string, unknown>, ...Record<string, unknown>[]];

const differencesOf = (file: SavedPlan, sites = desiredSites) =>
  rederive(file, sites, configPolicy).differences.map((d) => [d.domain, d.part, d.inFile, d.derived]);

const update = (domain: string) => saved.plan.changes.find((each) => each.domain === domain) as UpdateChange;

describe('re-deriving a saved plan names each edit', () => {
  it('the file as written: no difference, and the plan that comes back is the file plan', () => {
    expect(saved.plan.changes.map((change) => [change.action, change.domain])).toEqual([
      ['delete', 'gone.com'],
      ['create', 'new.com'],
      ['update', 'a.com'],
      ['update', 'b.com'],
    ]);
    const again = rederive(parseSavedPlan(serializeSavedPlan(saved), 'plan.json'), desiredSites, configPolicy);
    expect(again.differences).toEqual([]);
    expect(again.plan).toEqual(saved.plan);
  });

  it('a value edited in both `after` and `fields` is named once; the same field on two sites twice', () => {
    const file = tampered((_file, change) => {
      for (const domain of ['a.com', 'b.com']) {
        (change(domain).after as Record<string, unknown>).email = false;
        fieldsOf(change(domain))[0].after = false;
      }
    });
    expect(differencesOf(file)).toEqual([
      ['a.com', 'email', false, true],
      ['b.com', 'email', false, true],
    ]);
  });

  it('plan-wide parts are named each: summary, notes, fingerprints', () => {
    const file = tampered((edited) => {
      edited.plan.summary.delete = 0;
      edited.plan.notes = [];
      const entry = edited.fingerprints.find((each) => each.domain === 'gone.com');
      if (entry) entry.fingerprint = 'sha256:0000';
    });
    expect(differencesOf(file).map(([domain, part]) => [domain, part])).toEqual([
      [undefined, 'notes'],
      [undefined, 'summary'],
      [undefined, 'fingerprints'],
    ]);
  });

  it('a change with another action, or one the planner does not make, is named as a change', () => {
    const file = tampered((edited, change) => {
      change('b.com').action = 'delete';
      const extra: Change = { action: 'delete', domain: 'kept.com', id: 9, before: {}, fingerprint: 'sha256:1' };
      edited.plan.changes.push(extra);
    });
    expect(differencesOf(file)).toEqual([
      ['b.com', 'change', 'delete', 'update'],
      ['kept.com', 'change', 'delete', undefined],
    ]);
  });

  it('the live side of an update (`before`) is compared per field', () => {
    const file = tampered((_file, change) => {
      (change('b.com').before as Record<string, unknown>).favorite = true;
    });
    expect(differencesOf(file)).toEqual([['b.com', 'favorite', true, false]]);
  });

  it('a `before` removed or null is named per field, not a crash', () => {
    const all = Object.entries(update('b.com').before).map(([name, value]) => ['b.com', name, undefined, value]);
    for (const before of [undefined, null]) {
      const file = tampered((_file, change) => {
        change('b.com').before = before;
      });
      expect(differencesOf(file)).toEqual(all);
    }
  });

  it('an edit that changes no field value is still named, whole (an added null, a reordered field list)', () => {
    const nulled = tampered((_file, change) => {
      (change('b.com').before as Record<string, unknown>).password = null;
    });
    expect(differencesOf(nulled).map(([domain, part]) => [domain, part])).toEqual([['b.com', 'before']]);
    const reordered = tampered((_file, change) => {
      (change('a.com').fields as unknown[]).reverse();
    });
    expect(differencesOf(reordered)).toEqual([
      ['a.com', 'fields', [...update('a.com').fields].reverse(), update('a.com').fields],
    ]);
  });

  it('the field list and the ignored drift are compared per field', () => {
    const file = tampered((_file, change) => {
      fieldsOf(change('b.com'))[0].writeOnly = true;
      fieldsOf(change('a.com'), 'ignored')[0].after = true;
    });
    expect(differencesOf(file).map(([domain, part]) => [domain, part])).toEqual([
      ['a.com', 'excludeBots'],
      ['b.com', 'email'],
    ]);
  });

  it('a field list removed names each field the planner sends', () => {
    const file = tampered((_file, change) => {
      delete change('b.com').fields;
    });
    expect(differencesOf(file)).toEqual([['b.com', 'email', undefined, update('b.com').fields[0]]]);
  });

  it('an edited id is named by its part', () => {
    const file = tampered((_file, change) => {
      change('b.com').id = 99;
    });
    expect(differencesOf(file)).toEqual([['b.com', 'id', 99, 2]]);
  });
});

describe('re-deriving with the command-line choices the file records', () => {
  it('--unlisted-is-drift and --sync-write-only over fields only re-derive the same plan', () => {
    const sites = [desired('a.com', { excludeParams: ['ref'] })];
    const current = [live(1, 'a.com', {}, { writeOnly: ['excludeParams'] }), live(2, 'stray.com')];
    const made = policy({ unlistedIsDrift: true, syncWriteOnly: true, syncWriteOnlyFields: ['excludeParams'] });
    const file = savedFor(sites, current, made);
    expect(file.plan.notes.map((note) => note.kind)).toContain('unlisted_drift');
    expect(file.plan.changes.map((change) => change.domain)).toEqual(['a.com']);
    const again = parseSavedPlan(serializeSavedPlan(file), 'plan.json');
    expect(rederive(again, sites, policy()).differences).toEqual([]);
    // Without the recorded choice the same configuration plans something else.
    again.policy.unlistedIsDrift = false;
    expect(rederive(again, sites, policy()).differences.map((d) => d.part)).toContain('notes');
  });
});
