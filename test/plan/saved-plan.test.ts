import { describe, expect, it } from 'vitest';
import { keyIdOf, planSignatureOf } from '../../src/api/connection.js';
import { SitesyncError } from '../../src/model/errors.js';
import { Secret } from '../../src/model/secret.js';
import { plan } from '../../src/plan/planner.js';
import { policyFromConfig } from '../../src/plan/policy.js';
import { rederive } from '../../src/plan/rederive.js';
import {
  admissionRefusal,
  createSavedPlan,
  parseSavedPlan,
  type SavedPlan,
  serializeSavedPlan,
  signatureVerifies,
  signSavedPlan,
} from '../../src/plan/saved-plan.js';
import { desired, live, policy } from './builders.js';

const liveSites = [live(1, 'a.com'), live(2, 'gone.com')];
const desiredSites = [desired('a.com', { email: true }, { password: 'never-in-a-file' }), desired('new.com')];
const thePolicy = policy({ prune: true });
const saved = createSavedPlan({
  target: 'https://analytics.example.com',
  configDigest: 'sha256:abc',
  keyId: keyIdOf(new Secret('test-key')),
  policy: thePolicy,
  plan: plan(desiredSites, liveSites, thePolicy),
  live: liveSites,
});

describe('saved plan', () => {
  it('records target, config digest, policy and one fingerprint per change, in plan order', () => {
    expect(saved).toMatchObject({ formatVersion: 2, kind: 'sitesync-plan', target: 'https://analytics.example.com' });
    expect(saved.fingerprints.map((entry) => [entry.domain, entry.id])).toEqual([
      ['gone.com', 2],
      ['new.com', null],
      ['a.com', 1],
    ]);
  });

  it('round-trips through its text form, which holds no secret', () => {
    const text = serializeSavedPlan(saved);
    expect(text).not.toContain('never-in-a-file');
    expect(parseSavedPlan(text, 'plan.json')).toEqual(saved);
  });

  describe('signature (issue 23 item 14: a re-serialised file was refused as modified)', () => {
    const sign = (text: string) => planSignatureOf(new Secret('saved-plan-test-key-0123'), text);
    const signed = signSavedPlan(saved, sign);
    const sorted = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sorted);
      if (value === null || typeof value !== 'object') return value;
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
      return Object.fromEntries(entries.map(([key, entry]) => [key, sorted(entry)]));
    };
    const reformatted: [string, string][] = [
      ['as written', serializeSavedPlan(signed)],
      ['sorted keys, 2 spaces', JSON.stringify(sorted(signed), null, 2)],
      ['sorted keys, 4 spaces', JSON.stringify(sorted(signed), null, 4)],
      ['tabs', JSON.stringify(signed, null, '\t')],
      ['one line', JSON.stringify(signed)],
    ];

    it.each(reformatted)('verifies %s', (_name, text) => {
      expect(signatureVerifies(parseSavedPlan(text, 'plan.json'), sign)).toBe(true);
    });

    it.each(reformatted)('refuses an edited value, %s', (_name, text) => {
      const edited = text.replace('"a.com"', '"b.com"');
      expect(edited).not.toBe(text);
      expect(signatureVerifies(parseSavedPlan(edited, 'plan.json'), sign)).toBe(false);
    });

    it('refuses another key, a missing signature, and an added field', () => {
      const other = (text: string) => planSignatureOf(new Secret('another-test-key-456789'), text);
      expect(signatureVerifies(signed, other)).toBe(false);
      expect(signatureVerifies({ ...signed, signature: undefined }, sign)).toBe(false);
      expect(signatureVerifies({ ...signed, extra: 1 } as SavedPlan, sign)).toBe(false);
    });

    it('still accepts a file signed over its text as written (before issue 23)', () => {
      const { signature: _signature, ...unsigned } = saved;
      const legacy = { ...unsigned, signature: sign(serializeSavedPlan(unsigned)) };
      expect(signatureVerifies(parseSavedPlan(serializeSavedPlan(legacy), 'plan.json'), sign)).toBe(true);
    });
  });

  it('identifies the account by a salted, truncated digest of the key, never the key', () => {
    expect(keyIdOf(new Secret('test-key'))).toBe('9f5c9f0ccbe09f0b');
    expect(keyIdOf(new Secret('test-key2'))).not.toBe(keyIdOf(new Secret('test-key')));
    expect(saved.keyId).toBe('9f5c9f0ccbe09f0b');
    expect(serializeSavedPlan(saved)).not.toContain('test-key');
  });

  it.each([
    [
      'a plan without keyId (older sitesync)',
      JSON.stringify({ ...saved, keyId: undefined }),
      'plan.json: not a valid sitesync plan file: keyId must be 16 hex digits (a plan made by an older sitesync has none: make the plan again)',
    ],
    ['not JSON', '{', 'plan.json: not a sitesync plan file (invalid JSON'],
    ['another kind of file', '{"kind":"x"}', 'plan.json: not a valid sitesync plan file: kind must be "sitesync-plan"'],
    [
      'a newer format',
      JSON.stringify({ ...saved, formatVersion: 3 }),
      'formatVersion 3 is not supported (this sitesync reads 2)',
    ],
    [
      'format 1, which recorded no live state',
      JSON.stringify({ ...saved, formatVersion: 1, live: undefined }),
      'plan.json: not a valid sitesync plan file: formatVersion 1 was written by an older sitesync, which did not record the live state apply plans again from: make the plan again with this sitesync and review it',
    ],
    [
      'a live site without id',
      JSON.stringify({ ...saved, live: [{ domain: 'a.com', settings: {} }] }),
      'live[0]: a live site has a numeric id and a domain',
    ],
    [
      'a day that is not YYYY-MM-DD (it decides which ignore rules expired)',
      JSON.stringify({ ...saved, policy: { ...saved.policy, today: 'tomorrow' } }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'a non-boolean unlistedIsDrift',
      JSON.stringify({ ...saved, policy: { ...saved.policy, unlistedIsDrift: 'yes' } }),
      'policy: unlistedIsDrift must be a boolean',
    ],
    [
      'a change without fingerprint',
      JSON.stringify({ ...saved, plan: { ...saved.plan, changes: [{ action: 'delete', domain: 'x.com', id: 3 }] } }),
      'plan.changes[0]: a delete has a numeric id and a fingerprint',
    ],
  ])('rejects %s with a message naming the file', (_name, text, message) => {
    expect(() => parseSavedPlan(text, 'plan.json')).toThrow(SitesyncError);
    expect(() => parseSavedPlan(text, 'plan.json')).toThrow(message);
  });

  it.each([
    ['the same target, key and configuration', {}, undefined],
    [
      'another service',
      { target: 'https://other.example.com' },
      'plan.json was made for https://analytics.example.com, not https://other.example.com',
    ],
    [
      'another API key',
      { keyId: keyIdOf(new Secret('other-key')) },
      'plan.json was made with another API key (key id 9f5c9f0ccbe09f0b)',
    ],
    ['another configuration', { configDigest: 'sha256:def' }, 'the configuration changed since plan.json was made'],
  ])('admits a saved plan only where it was made: %s', (_name, change, refusal) => {
    const here = { target: saved.target, keyId: saved.keyId, configDigest: saved.configDigest, ...change };
    const answer = admissionRefusal(saved, here, 'plan.json');
    if (refusal === undefined) expect(answer).toBeUndefined();
    else expect(answer).toContain(refusal);
  });
});

describe('re-deriving a saved plan from the configuration and its recorded live state', () => {
  const configPolicy = { ...thePolicy };
  const edited = (edit: (copy: SavedPlan) => void): SavedPlan => {
    const copy = parseSavedPlan(serializeSavedPlan(saved), 'plan.json');
    edit(copy);
    return copy;
  };
  const differencesOf = (file: SavedPlan, sites = desiredSites) =>
    rederive(file, sites, configPolicy).differences.map((d) => [d.domain, d.part, d.inFile, d.derived]);

  it('records every live site without its raw record or update time, and re-derives the same plan', () => {
    const text = serializeSavedPlan(saved);
    expect(JSON.parse(text).live.map((site: { id: number; domain: string }) => site.domain)).toEqual([
      'a.com',
      'gone.com',
    ]);
    expect(text).not.toContain('"raw"');
    expect(differencesOf(parseSavedPlan(text, 'plan.json'))).toEqual([]);
    expect(policyFromConfig(configPolicy)).toEqual(thePolicy);
  });

  it('names the site and field of an edited change (email: true added)', () => {
    const file = edited((copy) => {
      const create = copy.plan.changes.find((change) => change.domain === 'new.com');
      if (create?.action === 'create') create.after.email = true;
    });
    expect(differencesOf(file)).toEqual([['new.com', 'email', true, false]]);
  });

  it('names an added or dropped change, a removed safety violation and an edited policy', () => {
    const dropped = edited((copy) => {
      copy.plan.changes = copy.plan.changes.filter((change) => change.domain !== 'gone.com');
    });
    expect(differencesOf(dropped)).toContainEqual(['gone.com', 'change', undefined, 'delete']);
    const relaxed = edited((copy) => {
      copy.policy.limits.maxDeletes = 100;
    });
    const limits = [undefined, 'policy.limits', { ...thePolicy.limits, maxDeletes: 100 }, thePolicy.limits];
    expect(differencesOf(relaxed)).toContainEqual(limits);
    const strict = policy({ prune: true, limits: { maxDeletes: 0, maxChangePercent: 100 } });
    const unsafe = createSavedPlan({
      ...saved,
      policy: strict,
      plan: plan(desiredSites, liveSites, strict),
      live: liveSites,
    });
    expect(unsafe.plan.safety.map((violation) => violation.rule)).toContain('max_deletes');
    const quiet = { ...unsafe, plan: { ...unsafe.plan, safety: [] } };
    expect(rederive(quiet, desiredSites, strict).differences.map((d) => d.part)).toEqual(['safety']);
  });

  it('re-derives with the choices and the day the plan was made with: an ignore rule expiring since changes nothing', () => {
    const ruled = {
      ...desired('a.com', { email: true }, { ignoreChanges: ['email'] }),
      ignoreRules: [{ field: 'email' as const, until: '2026-06-30', reason: 'CRM migration' }],
    };
    const sites = [ruled, desired('b.com', { excludeParams: ['ref'] })];
    const current = [live(1, 'a.com', { email: false }), live(2, 'b.com', {}, { writeOnly: ['excludeParams'] })];
    const made = policy({
      ...configPolicy,
      only: ['*.com'],
      syncWriteOnly: true,
      syncWriteOnlyFields: ['excludeParams'],
      syncWriteOnlySites: ['b.com'],
      today: '2026-06-30',
    });
    const file = createSavedPlan({ ...saved, policy: made, plan: plan(sites, current, made), live: current });
    expect(file.plan.changes.map((change) => change.domain)).toEqual(['b.com']); // email still ignored on its last day
    const again = parseSavedPlan(serializeSavedPlan(file), 'plan.json');
    expect(rederive(again, sites, configPolicy).differences).toEqual([]);
    // The day is what decided: the same file claiming the next day re-derives another plan.
    again.policy.today = '2026-07-01';
    expect(rederive(again, sites, configPolicy).differences.map((d) => [d.domain, d.part])).toContainEqual([
      'a.com',
      'change',
    ]);
  });

  it('a change the configuration no longer gives is named (another configuration, same file)', () => {
    const differences = differencesOf(saved, [desired('a.com', { email: true }), desired('new.com', { email: true })]);
    expect(differences).toContainEqual(['new.com', 'email', false, true]);
  });
});
