/**
 * The plan file over several targets (src/plan/saved-plan-set.ts): one signed
 * part per target, read back part by part; a file of either shape is told
 * apart, and a damaged one is refused with a message naming file and part.
 */
import { describe, expect, it } from 'vitest';
import { keyIdOf, planSignatureOf } from '../../src/api/connection.js';
import { SitesyncError } from '../../src/model/errors.js';
import { Secret } from '../../src/model/secret.js';
import { plan } from '../../src/plan/planner.js';
import {
  createSavedPlan,
  type SavedPlan,
  serializeSavedPlan,
  signatureVerifies,
  signSavedPlan,
} from '../../src/plan/saved-plan.js';
import {
  createSavedPlanSet,
  parsePlanFile,
  savedPlanOf,
  serializeSavedPlanSet,
} from '../../src/plan/saved-plan-set.js';
import { desired, live, policy } from './builders.js';

const stagingKey = new Secret('staging-test-key-0123456789');
const productionKey = new Secret('production-test-key-0123456');
const signer = (key: Secret) => (text: string) => planSignatureOf(key, text);

function signedPlan(target: string, key: Secret): SavedPlan {
  const made = policy({ prune: true });
  const current = [live(1, 'a.com'), live(2, 'gone.com')];
  const saved = createSavedPlan({
    target,
    configDigest: 'sha256:abc',
    keyId: keyIdOf(key),
    policy: made,
    plan: plan([desired('a.com', { email: true })], current, made),
    live: current,
  });
  return signSavedPlan(saved, signer(key));
}

const staging = signedPlan('https://staging.example.com', stagingKey);
const production = signedPlan('https://analytics.example.com', productionKey);
const set = createSavedPlanSet([
  { name: 'staging', saved: staging },
  { name: 'production', saved: production },
]);
const text = serializeSavedPlanSet(set);

describe('a plan file over several targets', () => {
  it('holds one named part per target, in order, each the signed single-target plan', () => {
    expect(set).toMatchObject({ formatVersion: 1, kind: 'sitesync-plan-targets' });
    expect(set.targets.map((part) => [part.name, part.target])).toEqual([
      ['staging', 'https://staging.example.com'],
      ['production', 'https://analytics.example.com'],
    ]);
    expect(text).toBe(`${JSON.stringify(set, null, 2)}\n`);
  });

  it('reads back as a set whose parts verify with their own key only', () => {
    const read = parsePlanFile(text, 'plan.json');
    if (!('set' in read)) throw new Error('expected a set');
    expect(read.set).toEqual(set);
    const [first, second] = read.set.targets.map(savedPlanOf);
    expect(first).toEqual(staging);
    expect(signatureVerifies(first as SavedPlan, signer(stagingKey))).toBe(true);
    expect(signatureVerifies(second as SavedPlan, signer(productionKey))).toBe(true);
    expect(signatureVerifies(first as SavedPlan, signer(productionKey))).toBe(false);
  });

  it('a part edited in the file no longer verifies (its delete limit relaxed)', () => {
    const edited = JSON.parse(text);
    edited.targets[1].policy.limits.maxDeletes = 1000;
    const read = parsePlanFile(JSON.stringify(edited), 'plan.json');
    if (!('set' in read)) throw new Error('expected a set');
    expect(signatureVerifies(savedPlanOf(read.set.targets[1]!), signer(productionKey))).toBe(false);
    expect(signatureVerifies(savedPlanOf(read.set.targets[0]!), signer(stagingKey))).toBe(true);
  });

  it('a single-target file, or one that is not a set, is read as a single plan', () => {
    expect(parsePlanFile(serializeSavedPlan(staging), 'plan.json')).toEqual({ single: staging });
    expect(() => parsePlanFile('{', 'plan.json')).toThrow('plan.json: not a sitesync plan file (invalid JSON');
    expect(() => parsePlanFile('null', 'plan.json')).toThrow(
      'plan.json: not a valid sitesync plan file: expected a JSON object',
    );
    expect(() => parsePlanFile('"sitesync-plan-targets"', 'plan.json')).toThrow(
      'plan.json: not a valid sitesync plan file: expected a JSON object',
    );
  });

  const broken = (edit: (file: Record<string, unknown> & { targets: unknown[] }) => void): string => {
    const file = JSON.parse(text);
    edit(file);
    return JSON.stringify(file);
  };

  it.each([
    [
      'another format',
      broken((file) => {
        file.formatVersion = 2;
      }),
      'formatVersion 2 is not supported (this sitesync reads 1)',
    ],
    [
      'no format',
      broken((file) => {
        delete file.formatVersion;
      }),
      'formatVersion undefined is not supported (this sitesync reads 1)',
    ],
    [
      'no targets',
      broken((file) => {
        file.targets = undefined as unknown as unknown[];
      }),
      'targets must be a non-empty list',
    ],
    [
      'an empty list',
      broken((file) => {
        file.targets = [];
      }),
      'targets must be a non-empty list',
    ],
    [
      'a part that is not an object',
      broken((file) => {
        file.targets[1] = null;
      }),
      'targets[1]: name missing',
    ],
    [
      'a part without name',
      broken((file) => {
        delete (file.targets[0] as { name?: string }).name;
      }),
      'targets[0]: name missing',
    ],
    [
      'an empty name',
      broken((file) => {
        (file.targets[1] as { name: string }).name = '';
      }),
      'targets[1]: name missing',
    ],
    [
      'a name that is not text',
      broken((file) => {
        (file.targets[0] as { name: unknown }).name = 7;
      }),
      'targets[0]: name missing',
    ],
    [
      'a target twice',
      broken((file) => {
        (file.targets[1] as { name: string }).name = 'staging';
      }),
      'targets[1]: target staging appears twice',
    ],
    [
      'a part that is not a valid plan',
      broken((file) => {
        (file.targets[1] as { keyId: string }).keyId = 'not-hex';
      }),
      'targets[1] (production): keyId must be 16 hex digits',
    ],
  ])('refuses %s, naming the file and the part', (_name, damaged, message) => {
    expect(() => parsePlanFile(damaged, 'plan.json')).toThrow(SitesyncError);
    expect(() => parsePlanFile(damaged, 'plan.json')).toThrow(`plan.json: not a valid sitesync plan file: ${message}`);
  });
});
