import { beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf, planSignatureOf } from '../../src/api/connection.js';
import { SitesyncError } from '../../src/model/errors.js';
import { Secret } from '../../src/model/secret.js';
import { plan } from '../../src/plan/planner.js';
import { policyFromConfig } from '../../src/plan/policy.js';
import { rederive } from '../../src/plan/rederive.js';
import {
  admissionRefusal,
  createSavedPlan,
  liveCountOf,
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
// Made in beforeAll, not at module load: planner code run at load makes every planner mutant "static" for Stryker.
let saved: SavedPlan;
beforeAll(() => {
  saved = createSavedPlan({
    target: 'https://analytics.example.com',
    configDigest: 'sha256:abc',
    keyId: keyIdOf(new Secret('test-key')),
    policy: thePolicy,
    plan: plan(desiredSites, liveSites, thePolicy),
    live: liveSites,
  });
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
    let signed: SavedPlan;
    beforeAll(() => {
      signed = signSavedPlan(saved, sign);
    });
    const sorted = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(sorted);
      if (value === null || typeof value !== 'object') return value;
      const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
      return Object.fromEntries(entries.map(([key, entry]) => [key, sorted(entry)]));
    };
    const reformatted: [string, (file: SavedPlan) => string][] = [
      ['as written', serializeSavedPlan],
      ['sorted keys, 2 spaces', (file) => JSON.stringify(sorted(file), null, 2)],
      ['sorted keys, 4 spaces', (file) => JSON.stringify(sorted(file), null, 4)],
      ['tabs', (file) => JSON.stringify(file, null, '\t')],
      ['one line', (file) => JSON.stringify(file)],
    ];

    it.each(reformatted)('verifies %s', (_name, format) => {
      expect(signatureVerifies(parseSavedPlan(format(signed), 'plan.json'), sign)).toBe(true);
    });

    it.each(reformatted)('refuses an edited value, %s', (_name, format) => {
      const text = format(signed);
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
      () => JSON.stringify({ ...saved, keyId: undefined }),
      'plan.json: not a valid sitesync plan file: keyId must be 16 hex digits (a plan made by an older sitesync has none: make the plan again)',
    ],
    ['not JSON', () => '{', 'plan.json: not a sitesync plan file (invalid JSON'],
    [
      'another kind of file',
      () => '{"kind":"x"}',
      'plan.json: not a valid sitesync plan file: kind must be "sitesync-plan"',
    ],
    [
      'a newer format',
      () => JSON.stringify({ ...saved, formatVersion: 3 }),
      'formatVersion 3 is not supported (this sitesync reads 2)',
    ],
    [
      'format 1, which recorded no live state',
      () => JSON.stringify({ ...saved, formatVersion: 1, live: undefined }),
      'plan.json: not a valid sitesync plan file: formatVersion 1 was written by an older sitesync, which did not record the live state apply plans again from: make the plan again with this sitesync and review it',
    ],
    [
      'a live site without id',
      () => JSON.stringify({ ...saved, live: [{ domain: 'a.com', settings: {} }] }),
      'live[0]: a live site has a numeric id and a domain',
    ],
    [
      'a day that is not YYYY-MM-DD (it decides which ignore rules expired)',
      () => JSON.stringify({ ...saved, policy: { ...saved.policy, today: 'tomorrow' } }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'a non-boolean unlistedIsDrift',
      () => JSON.stringify({ ...saved, policy: { ...saved.policy, unlistedIsDrift: 'yes' } }),
      'policy: unlistedIsDrift must be a boolean',
    ],
    [
      'a change without fingerprint',
      () =>
        JSON.stringify({ ...saved, plan: { ...saved.plan, changes: [{ action: 'delete', domain: 'x.com', id: 3 }] } }),
      'plan.changes[0]: a delete has a numeric id and a fingerprint',
    ],
  ])('rejects %s with a message naming the file', (_name, textOf, message) => {
    const text = textOf(); // a function: `saved` is made in beforeAll
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

describe('a damaged plan file is refused, naming what is wrong', () => {
  // saved: changes[0] deletes gone.com, [1] creates new.com, [2] updates a.com.
  type Editable = Record<string, unknown> & {
    policy: Record<string, unknown> & { manage: Record<string, unknown>; limits: Record<string, unknown> };
    plan: Record<string, unknown> & { changes: Record<string, unknown>[] };
    fingerprints: Record<string, unknown>[];
    live: Record<string, unknown>[];
  };
  // Lazy: `saved` is made in beforeAll.
  const damaged =
    (edit: (file: Editable) => void): (() => string) =>
    () => {
      const file = JSON.parse(serializeSavedPlan(saved)) as Editable;
      edit(file);
      return JSON.stringify(file);
    };
  const cases: [string, string | (() => string), string][] = [
    ['a list', '[]', 'expected a JSON object'],
    ['null', 'null', 'expected a JSON object'],
    ['text', '"sitesync-plan"', 'expected a JSON object'],
    ['no kind', damaged((f) => delete f.kind), 'kind must be "sitesync-plan"'],
    [
      'a format as text',
      damaged((f) => {
        f.formatVersion = '1';
      }),
      'formatVersion "1" is not supported (this sitesync reads 2)',
    ],
    ['no target', damaged((f) => delete f.target), 'target must be a URL'],
    [
      'an empty target',
      damaged((f) => {
        f.target = '';
      }),
      'target must be a URL',
    ],
    [
      'a digest that is not text',
      damaged((f) => {
        f.configDigest = 7;
      }),
      'configDigest must be a string',
    ],
    [
      'a key id of 15 digits',
      damaged((f) => {
        f.keyId = '9f5c9f0ccbe09f0';
      }),
      'keyId must be 16 hex digits',
    ],
    [
      'a key id of 17 digits',
      damaged((f) => {
        f.keyId = '9f5c9f0ccbe09f0b0';
      }),
      'keyId must be 16 hex digits',
    ],
    [
      'a key id after other text',
      damaged((f) => {
        f.keyId = 'x9f5c9f0ccbe09f0b';
      }),
      'keyId must be 16 hex digits',
    ],
    [
      'a key id in capitals',
      damaged((f) => {
        f.keyId = '9F5C9F0CCBE09F0B';
      }),
      'keyId must be 16 hex digits',
    ],
    [
      'a key id that is not text',
      damaged((f) => {
        f.keyId = 1234567890123456;
      }),
      'keyId must be 16 hex digits',
    ],
    ['no policy', damaged((f) => delete (f as Record<string, unknown>).policy), 'policy: expected an object'],
    [
      'prune as text',
      damaged((f) => {
        f.policy.prune = 'true';
      }),
      'policy: prune and syncWriteOnly must be booleans',
    ],
    [
      'no syncWriteOnly',
      damaged((f) => delete f.policy.syncWriteOnly),
      'policy: prune and syncWriteOnly must be booleans',
    ],
    [
      'no manage',
      damaged((f) => delete (f.policy as Record<string, unknown>).manage),
      'policy: manage must have include and exclude lists',
    ],
    [
      'manage.include as text',
      damaged((f) => {
        f.policy.manage.include = '*';
      }),
      'policy: manage must have include and exclude lists',
    ],
    [
      'manage.exclude of numbers',
      damaged((f) => {
        f.policy.manage.exclude = [1];
      }),
      'policy: manage must have include and exclude lists',
    ],
    ['no protect', damaged((f) => delete f.policy.protect), 'policy: protect, only and skip must be lists of globs'],
    [
      'only as text',
      damaged((f) => {
        f.policy.only = 'a.com';
      }),
      'policy: protect, only and skip must be lists of globs',
    ],
    [
      'skip of numbers',
      damaged((f) => {
        f.policy.skip = [1];
      }),
      'policy: protect, only and skip must be lists of globs',
    ],
    [
      'syncWriteOnlyFields as text',
      damaged((f) => {
        f.policy.syncWriteOnlyFields = 'email';
      }),
      'policy: syncWriteOnlyFields must be a list',
    ],
    [
      'syncWriteOnlySites as text',
      damaged((f) => {
        f.policy.syncWriteOnlySites = 'a.com';
      }),
      'policy: syncWriteOnlySites must be a list',
    ],
    [
      'a day as a number',
      damaged((f) => {
        f.policy.today = 20260701;
      }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'a day with text before',
      damaged((f) => {
        f.policy.today = 'x2026-07-01';
      }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'a day with text after',
      damaged((f) => {
        f.policy.today = '2026-07-01x';
      }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'a day with short parts',
      damaged((f) => {
        f.policy.today = '2026-7-1';
      }),
      'policy: today must be a day, YYYY-MM-DD',
    ],
    [
      'no limits',
      damaged((f) => delete (f.policy as Record<string, unknown>).limits),
      'policy: limits must have maxDeletes and maxChangePercent',
    ],
    [
      'maxDeletes as text',
      damaged((f) => {
        f.policy.limits.maxDeletes = '5';
      }),
      'policy: limits must have maxDeletes and maxChangePercent',
    ],
    [
      'no maxChangePercent',
      damaged((f) => delete f.policy.limits.maxChangePercent),
      'policy: limits must have maxDeletes and maxChangePercent',
    ],
    [
      'no plan',
      damaged((f) => delete (f as Record<string, unknown>).plan),
      'plan must have changes, notes and safety arrays',
    ],
    [
      'no changes',
      damaged((f) => delete (f.plan as Record<string, unknown>).changes),
      'plan must have changes, notes and safety arrays',
    ],
    ['no notes', damaged((f) => delete f.plan.notes), 'plan must have changes, notes and safety arrays'],
    ['no safety', damaged((f) => delete f.plan.safety), 'plan must have changes, notes and safety arrays'],
    ['no summary', damaged((f) => delete f.plan.summary), 'plan.summary must be an object'],
    [
      'a change that is not an object',
      damaged((f) => {
        f.plan.changes[1] = 'create' as never;
      }),
      'plan.changes[1]: domain missing',
    ],
    ['a change without domain', damaged((f) => delete f.plan.changes[2]?.domain), 'plan.changes[2]: domain missing'],
    [
      'fields as text',
      damaged((f) => {
        (f.plan.changes[2] ?? {}).fields = 'email';
      }),
      'plan.changes[2]: fields must be a list',
    ],
    [
      'a create with an id',
      damaged((f) => {
        (f.plan.changes[1] ?? {}).id = 4;
      }),
      'plan.changes[1]: a create has id null and after settings',
    ],
    [
      'a create without settings',
      damaged((f) => delete f.plan.changes[1]?.after),
      'plan.changes[1]: a create has id null and after settings',
    ],
    [
      'an update with a text id',
      damaged((f) => {
        (f.plan.changes[2] ?? {}).id = '1';
      }),
      'plan.changes[2]: an update has a numeric id, after settings and a fingerprint',
    ],
    [
      'an update without settings',
      damaged((f) => delete f.plan.changes[2]?.after),
      'plan.changes[2]: an update has a numeric id, after settings and a fingerprint',
    ],
    [
      'an update without fingerprint',
      damaged((f) => delete f.plan.changes[2]?.fingerprint),
      'plan.changes[2]: an update has a numeric id, after settings and a fingerprint',
    ],
    [
      'a delete without id',
      damaged((f) => delete f.plan.changes[0]?.id),
      'plan.changes[0]: a delete has a numeric id and a fingerprint',
    ],
    [
      'an unknown action',
      damaged((f) => {
        (f.plan.changes[0] ?? {}).action = 'rename';
      }),
      'plan.changes[0]: unknown action "rename"',
    ],
    [
      'no fingerprints',
      damaged((f) => delete (f as Record<string, unknown>).fingerprints),
      'fingerprints must list one entry per change',
    ],
    [
      'a fingerprint missing',
      damaged((f) => {
        f.fingerprints.pop();
      }),
      'fingerprints must list one entry per change',
    ],
    [
      'a fingerprint that is not an object',
      damaged((f) => {
        f.fingerprints[0] = null as never;
      }),
      'fingerprints[0]: domain missing',
    ],
    [
      'a fingerprint without domain',
      damaged((f) => delete f.fingerprints[2]?.domain),
      'fingerprints[2]: domain missing',
    ],
    [
      'a fingerprint with a text id',
      damaged((f) => {
        (f.fingerprints[2] ?? {}).id = '1';
      }),
      'fingerprints[2]: id must be a number or null',
    ],
    [
      'a fingerprint without id',
      damaged((f) => delete f.fingerprints[0]?.id),
      'fingerprints[0]: id must be a number or null',
    ],
    [
      'a fingerprint as a number',
      damaged((f) => {
        (f.fingerprints[2] ?? {}).fingerprint = 5;
      }),
      'fingerprints[2]: fingerprint must be a string or null',
    ],
    [
      'no live sites',
      damaged((f) => delete (f as Record<string, unknown>).live),
      'live must list the live sites the plan was made against',
    ],
    [
      'a live site without domain',
      damaged((f) => delete f.live[1]?.domain),
      'live[1]: a live site has a numeric id and a domain',
    ],
    [
      'a live site that is not an object',
      damaged((f) => {
        f.live[0] = 1 as never;
      }),
      'live[0]: a live site has a numeric id and a domain',
    ],
    ['a live site without settings', damaged((f) => delete f.live[1]?.settings), 'live[1]: settings must be an object'],
    [
      'a password flag as text',
      damaged((f) => {
        (f.live[0] ?? {}).hasPassword = 'no';
      }),
      'live[0]: hasPassword must be a boolean',
    ],
    [
      'a creation time as a number',
      damaged((f) => {
        (f.live[0] ?? {}).createdAt = 5;
      }),
      'live[0]: createdAt must be a string',
    ],
  ];
  it.each(cases)('%s', (_name, textOf, problem) => {
    const text = typeof textOf === 'string' ? textOf : textOf();
    expect(() => parseSavedPlan(text, 'plan.json')).toThrow(SitesyncError);
    expect(() => parseSavedPlan(text, 'plan.json')).toThrow(`plan.json: not a valid sitesync plan file: ${problem}`);
  });

  it('optional parts may be absent, or present with the right type', () => {
    const accepted = damaged((f) => {
      delete f.plan.changes[2]?.fields;
      f.policy.syncWriteOnlyFields = ['excludeParams'];
      f.policy.syncWriteOnlySites = ['a.com'];
      f.policy.today = '2026-07-01';
      f.policy.unlistedIsDrift = true;
      Object.assign(f.live[0] ?? {}, { hasPassword: true, createdAt: '2020-01-01T00:00:00Z' });
      delete f.live[1]?.hasPassword;
    })();
    expect(parseSavedPlan(accepted, 'plan.json').policy.today).toBe('2026-07-01');
  });
});

describe('what the file records of the account', () => {
  const made = policy({
    prune: true,
    manage: { include: ['*.com'], exclude: [] },
    protect: ['keep.com'],
    skip: ['skipped.com'],
  });
  const account = [
    live(6, 'skipped.com'), // filtered by --skip
    live(5, 'out.org'), // outside manage
    live(4, 'keep.com'), // protected: kept
    live(3, 'gone.com'), // deleted
    live(2, 'b.com'), // unchanged
    live(1, 'a.com'), // updated
  ];
  const sites = [desired('a.com', { email: true }), desired('b.com'), desired('new.com')];
  let file: SavedPlan;
  beforeAll(() => {
    file = createSavedPlan({ ...saved, policy: made, plan: plan(sites, account, made), live: account });
  });

  it('counts every live site the plan was made against, whatever became of it', () => {
    expect(file.plan.summary).toMatchObject({ create: 1, update: 1, delete: 1, unchanged: 1, outOfScope: 1, kept: 1 });
    expect(liveCountOf(file.plan)).toBe(account.length);
  });

  it('records when each live site was created (what a delete destroys), and no time the server did not give', () => {
    const dated = [live(1, 'a.com', {}, { createdAt: '2020-01-01T00:00:00Z' }), live(2, 'b.com')];
    const recorded = createSavedPlan({ ...saved, plan: plan(sites, dated, made), live: dated }).live;
    expect(recorded.map((site) => site.createdAt)).toEqual(['2020-01-01T00:00:00Z', undefined]);
  });

  it('records the live sites by id, so the same account listed in another order writes the same file', () => {
    expect(file.live.map((site) => site.id)).toEqual([1, 2, 3, 4, 5, 6]);
    const reordered = createSavedPlan({
      ...saved,
      policy: made,
      plan: plan(sites, account, made),
      live: [...account].reverse(),
    });
    expect(serializeSavedPlan(reordered)).toBe(serializeSavedPlan(file));
  });
});
