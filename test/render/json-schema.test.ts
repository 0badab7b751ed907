import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { explain } from '../../src/plan/explain.js';
import { plan } from '../../src/plan/planner.js';
import { renderJson } from '../../src/render/json.js';
import { renderTargetsJson, type TargetReport } from '../../src/render/targets.js';
import { desired, live, policy } from '../plan/builders.js';
import { desiredSites, fixturePlan, fixturePolicy, liveSites } from './fixture.js';

const schema = JSON.parse(readFileSync('schemas/plan.schema.json', 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

describe('schemas/plan.schema.json', () => {
  it.each([
    ['the fixture plan', renderJson(fixturePlan(), { target: 'https://analytics.example.com' })],
    ['a plan with --explain', renderJson(fixturePlan(), { explain: explain(desiredSites, liveSites, fixturePolicy) })],
    ['an empty plan', renderJson(plan([desired('a.com')], [live(1, 'a.com')], policy()))],
    ['an empty account (coverage percent null)', renderJson(plan([desired('a.com')], [], policy()))],
    [
      'an expired ignore_changes rule (note with field, until, reason)',
      renderJson(
        plan(
          [
            {
              ...desired('a.com', { email: true }, { ignoreChanges: ['email'] }),
              ignoreRules: [{ field: 'email', until: '2026-06-30', reason: 'CRM migration' }],
            },
          ],
          [live(1, 'a.com')],
          policy({ today: '2026-07-01' }),
        ),
      ),
    ],
    [
      'a suspected rename and write-only values',
      renderJson(
        plan(
          [desired('new.com', { privacy: 'password' }, { password: 'pw-123456' })],
          [live(1, 'old.com', { privacy: 2 }, { writeOnly: ['excludeParams'] })],
          policy({ prune: true, syncWriteOnly: true }),
        ),
      ),
    ],
    [
      'a plan classified against a baseline (every class, unlisted drift)',
      renderJson(
        plan(
          [
            desired('a.com', { email: true, favorite: true }),
            desired('new.com'),
            desired('c.com', { privacy: 'public' }),
          ],
          [live(1, 'a.com', { favorite: false }), live(2, 'stranger.com'), live(3, 'c.com', { privacy: 'password' })],
          policy({ unlistedIsDrift: true }),
          {
            ref: { ref: 'sitesync-applied', commit: 'c'.repeat(40), source: 'default' },
            websites: [desired('a.com', { favorite: true }), desired('c.com', { privacy: 'private' })],
            policy: policy(),
          },
        ),
      ),
    ],
    [
      'a baseline fetched from origin in place of the --baseline given, and a first configuration',
      renderJson(
        plan([desired('a.com', { email: true })], [live(1, 'a.com')], policy(), {
          ref: {
            ref: 'sitesync-applied',
            commit: 'c'.repeat(40),
            source: 'option',
            fetchedFrom: 'origin',
            insteadOf: { ref: 'origin/main', commit: 'd'.repeat(40) },
            noConfiguration: true,
          },
          websites: [],
          policy: policy(),
        }),
      ),
    ],
  ])('accepts %s', (_name, text) => {
    const valid = validate(JSON.parse(text));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('a classified plan carries baseline, hasDrift, classes and their counts', () => {
    const document = JSON.parse(
      renderJson(
        plan([desired('a.com', { email: true })], [live(1, 'a.com')], policy(), {
          ref: { ref: 'main', commit: 'c'.repeat(40), source: 'option' },
          websites: [desired('a.com')],
          policy: policy(),
        }),
      ),
    );
    expect(document).toMatchObject({
      formatVersion: '2.1',
      hasDrift: false,
      baseline: { ref: 'main', source: 'option' },
      summary: { pending: 1, drift: 0, conflict: 0 },
      changes: [{ domain: 'a.com', class: 'pending', fields: [{ field: 'email', class: 'pending' }] }],
    });
  });

  it('rejects a document of another format version', () => {
    const document = JSON.parse(renderJson(fixturePlan()));
    expect(validate({ ...document, formatVersion: '3.0' })).toBe(false);
    // A string "MAJOR.MINOR" (a number cannot say 1.10): the number 2 is not it.
    expect(validate({ ...document, formatVersion: 2 })).toBe(false);
  });
});

describe('schemas/plan-targets.schema.json', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addSchema(schema);
  const validateTargets = ajv.compile(JSON.parse(readFileSync('schemas/plan-targets.schema.json', 'utf8')));
  const reports: TargetReport[] = [
    { name: 'staging', target: 'https://staging.example.com', plan: fixturePlan(), code: 0 },
    {
      name: 'broken',
      target: 'https://broken.example.com',
      error: { code: 'auth', message: 'the service refused the API key (401)' },
      code: 1,
    },
  ];

  it('accepts a document with a planned and a failed target', () => {
    const valid = validateTargets(JSON.parse(renderTargetsJson(reports)));
    expect(validateTargets.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("rejects a failed target's error given as a bare message (format 1.3's shape)", () => {
    const document = JSON.parse(renderTargetsJson(reports));
    document.targets[1].error = 'the service refused the API key (401)';
    expect(validateTargets(document)).toBe(false);
  });

  it('rejects an element without a name', () => {
    const document = JSON.parse(renderTargetsJson(reports));
    delete document.targets[0].name;
    expect(validateTargets(document)).toBe(false);
  });
});
