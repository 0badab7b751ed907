// The planner's policy from the configuration and the command line (src/plan/policy.ts).
import { describe, expect, it } from 'vitest';
import type { ConfigPolicy } from '../../src/model/desired-state.js';
import { parseWriteOnlySync, policyFromConfig } from '../../src/plan/policy.js';

const config: ConfigPolicy = {
  prune: true,
  manage: { include: ['*.shop.example'], exclude: ['legacy.shop.example'] },
  protect: ['keep.shop.example'],
  limits: { maxDeletes: 7, maxChangePercent: 45 },
};

describe('policyFromConfig', () => {
  it('keeps every part of the configuration and the command line', () => {
    const cli = { only: ['a.shop.example'], skip: ['b.shop.example'], today: '2026-07-01', unlistedIsDrift: true };
    expect(policyFromConfig(config, cli)).toEqual({
      prune: true,
      manage: { include: ['*.shop.example'], exclude: ['legacy.shop.example'] },
      protect: ['keep.shop.example'],
      limits: { maxDeletes: 7, maxChangePercent: 45 },
      only: ['a.shop.example'],
      skip: ['b.shop.example'],
      syncWriteOnly: false,
      today: '2026-07-01',
      unlistedIsDrift: true,
    });
  });

  it('sets nothing the configuration and command line leave out', () => {
    expect(policyFromConfig(config)).toStrictEqual({
      prune: true,
      manage: { include: ['*.shop.example'], exclude: ['legacy.shop.example'] },
      protect: ['keep.shop.example'],
      limits: { maxDeletes: 7, maxChangePercent: 45 },
      only: [],
      skip: [],
      syncWriteOnly: false,
    });
  });

  it('unlisted_is_drift comes from the configuration or from --unlisted-is-drift', () => {
    expect(policyFromConfig({ ...config, unlistedIsDrift: true }).unlistedIsDrift).toBe(true);
    expect(policyFromConfig(config, { unlistedIsDrift: true }).unlistedIsDrift).toBe(true);
    expect(policyFromConfig({ ...config, unlistedIsDrift: false }, { unlistedIsDrift: false })).not.toHaveProperty(
      'unlistedIsDrift',
    );
  });

  it('a bare --sync-write-only selects everything: no field or site list', () => {
    const policy = policyFromConfig(config, { syncWriteOnly: { fields: [], sites: [] } });
    expect(policy.syncWriteOnly).toBe(true);
    expect(policy).not.toHaveProperty('syncWriteOnlyFields');
    expect(policy).not.toHaveProperty('syncWriteOnlySites');
  });
});

describe('parseWriteOnlySync', () => {
  it('trims words and takes a domain once, whatever its case', () => {
    expect(parseWriteOnlySync([' password , Shop.Example', 'shop.example'])).toEqual({
      fields: ['password'],
      sites: ['shop.example'],
    });
  });

  it('a word that is neither names the fields it could have been', () => {
    expect(() => parseWriteOnlySync(['exclude params'])).toThrow(
      '--sync-write-only "exclude params": neither a field (privacy, email, exclude_bots, exclude_params, exclude_ips, favorite, password) nor a domain or glob (letters, digits, . - _ * ?)',
    );
  });
});
