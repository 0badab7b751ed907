import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/model/desired-state.js';
import type { FieldName } from '../../src/model/website.js';
import { explain } from '../../src/plan/explain.js';
import { policyFromConfig } from '../../src/plan/policy.js';
import { desired, live, policy } from './builders.js';

describe('explain', () => {
  it('shows raw and canonical values on both sides, and the outcome per field', () => {
    const current = {
      ...live(4, 'a.com', { email: '1', excludeIps: '10.0.0.2\r\n10.0.0.1' }, { writeOnly: ['excludeParams'] }),
      raw: { email: '1', exclude_ips: '10.0.0.2\r\n10.0.0.1', password: false },
    };
    const site = {
      ...desired(
        'a.com',
        { email: true, excludeIps: ['10.0.0.1', '10.0.0.2'], privacy: 'public' },
        { password: 'pw-1234' },
      ),
      raw: { email: 'yes', exclude_ips: ['10.0.0.1', '10.0.0.2'] },
    };
    const [entry] = explain([site], [current], policy());
    expect(entry?.domain).toBe('a.com');
    expect(entry?.fields).toEqual([
      {
        field: 'privacy',
        live: { raw: undefined, canonical: 'private' },
        desired: { raw: 'public', canonical: 'public' },
        outcome: 'change',
      },
      {
        field: 'email',
        live: { raw: '1', canonical: true },
        desired: { raw: 'yes', canonical: true },
        outcome: 'same',
      },
      {
        field: 'excludeBots',
        live: { raw: undefined, canonical: true },
        desired: { raw: true, canonical: true },
        outcome: 'same',
      },
      {
        field: 'excludeParams',
        live: { raw: undefined, canonical: undefined },
        desired: { raw: [], canonical: [] },
        outcome: 'write-only',
      },
      {
        field: 'excludeIps',
        live: { raw: '10.0.0.2\r\n10.0.0.1', canonical: ['10.0.0.1', '10.0.0.2'] },
        desired: { raw: ['10.0.0.1', '10.0.0.2'], canonical: ['10.0.0.1', '10.0.0.2'] },
        outcome: 'same',
      },
      {
        field: 'favorite',
        live: { raw: undefined, canonical: false },
        desired: { raw: false, canonical: false },
        outcome: 'same',
      },
      {
        field: 'password',
        live: { raw: false, canonical: false },
        desired: { raw: undefined, canonical: true },
        outcome: 'write-only',
      },
    ]);
    expect(JSON.stringify(entry)).not.toContain('pw-1234');
  });

  it('says what the planner does with the password: not managed, sent, ignored or write-only', () => {
    const protectedSite = (domain: string, extra: { password?: string; ignoreChanges?: FieldName[] }) =>
      desired(domain, { privacy: 'password' }, extra);
    const result = explain(
      [
        desired('none.com'),
        protectedSite('send.com', { password: 'pw-1' }),
        protectedSite('ignored.com', { password: 'pw-2', ignoreChanges: ['password'] }),
        protectedSite('kept.com', { password: 'pw-3' }),
      ],
      [
        live(1, 'none.com', {}, { hasPassword: false }),
        live(2, 'send.com', { privacy: 2 }, { hasPassword: false }),
        live(3, 'ignored.com', { privacy: 2 }, { hasPassword: true }),
        live(4, 'kept.com', { privacy: 2 }, { hasPassword: true }),
      ],
      policy(),
    );
    const password = result.map((site) => [site.domain, site.fields.at(-1)]);
    expect(password).toEqual([
      [
        'ignored.com',
        {
          field: 'password',
          live: { raw: true, canonical: true },
          desired: { raw: undefined, canonical: true },
          outcome: 'ignored',
        },
      ],
      [
        'kept.com',
        {
          field: 'password',
          live: { raw: true, canonical: true },
          desired: { raw: undefined, canonical: true },
          outcome: 'write-only',
        },
      ],
      [
        'none.com',
        {
          field: 'password',
          live: { raw: false, canonical: false },
          desired: { raw: undefined, canonical: false },
          outcome: 'not-managed',
        },
      ],
      [
        'send.com',
        {
          field: 'password',
          live: { raw: false, canonical: false },
          desired: { raw: undefined, canonical: true },
          outcome: 'change',
        },
      ],
    ]);
  });

  it('covers only matched sites inside scope and filters', () => {
    const result = explain(
      [desired('a.com'), desired('b.com'), desired('new.com')],
      [live(1, 'a.com'), live(2, 'b.com')],
      policy({ skip: ['b.*'] }),
    );
    expect(result.map((entry) => entry.domain)).toEqual(['a.com']);
  });
});

describe('policyFromConfig', () => {
  it('combines the configuration policy with the command line', () => {
    expect(policyFromConfig(DEFAULT_POLICY, { only: ['*.com'], syncWriteOnly: true })).toEqual({
      prune: false,
      manage: { include: ['*'], exclude: [] },
      protect: [],
      limits: { maxDeletes: 3, maxChangePercent: 30 },
      only: ['*.com'],
      skip: [],
      syncWriteOnly: true,
    });
  });
});
