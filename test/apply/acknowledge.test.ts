import { describe, expect, test } from 'vitest';
import { acknowledged, acknowledgedBy, refusalOf, unacknowledged } from '../../src/apply/acknowledge.js';
import { safetyRefusalText } from '../../src/render/safety-refusal.js';

/** The refusal as apply/ decides it and render/ words it. */
const refusalMessage = (violations: SafetyViolation[], acks: { allowDelete: string[] }) =>
  safetyRefusalText(refusalOf(violations, acks));

import type { SafetyViolation } from '../../src/model/plan.js';

const tooManyDeletes: SafetyViolation = {
  rule: 'max_deletes',
  domains: ['a.com', 'b.com', 'c.com', 'shop.d.com'],
  limit: 3,
  actual: 4,
};
const tooManyChanged: SafetyViolation = {
  rule: 'max_change_percent',
  domains: ['a.com', 'b.com', 'c.com', 'e.com'],
  limit: 25,
  actual: 33.3,
  total: 12,
};
const rename: SafetyViolation = {
  rule: 'suspected_rename',
  domains: ['a.com'],
  renamedTo: 'a.org',
};

describe('unacknowledged', () => {
  test('every domain named, by name or glob, acknowledges over-limit deletes', () => {
    expect(unacknowledged([tooManyDeletes], { allowDelete: ['a.com', 'b.com', 'c.com', '*.d.com'] })).toEqual([]);
  });

  test('one domain missing leaves the violation standing', () => {
    expect(unacknowledged([tooManyDeletes], { allowDelete: ['a.com', 'b.com', 'c.com'] })).toEqual([tooManyDeletes]);
  });

  test('a raised limit acknowledges deletes only when it covers them all', () => {
    expect(unacknowledged([tooManyDeletes], { allowDelete: [], maxDeletes: 4 })).toEqual([]);
    expect(unacknowledged([tooManyDeletes], { allowDelete: [], maxDeletes: 3 })).toEqual([tooManyDeletes]);
  });

  test('a raised limit never acknowledges a suspected rename: the old domain must be named', () => {
    expect(unacknowledged([rename], { allowDelete: [], maxDeletes: 100 })).toEqual([rename]);
    expect(unacknowledged([rename], { allowDelete: ['a.org'] })).toEqual([rename]);
    expect(unacknowledged([rename], { allowDelete: ['a.com'] })).toEqual([]);
  });

  test('a share of changed sites over the limit is acknowledged by --max-change-percent only', () => {
    const everyDomain = { allowDelete: ['a.com', 'b.com', 'c.com', 'e.com'] };
    expect(unacknowledged([tooManyChanged], everyDomain)).toEqual([tooManyChanged]);
    expect(unacknowledged([tooManyChanged], { allowDelete: [], maxChangePercent: 33 })).toEqual([tooManyChanged]);
    expect(unacknowledged([tooManyChanged], { allowDelete: [], maxChangePercent: 34 })).toEqual([]);
    expect(unacknowledged([tooManyDeletes], { allowDelete: [], maxChangePercent: 100 })).toEqual([tooManyDeletes]);
  });
});

describe('refusalMessage', () => {
  test('names each rule and, per rule, the exact flags that would acknowledge it', () => {
    expect(refusalMessage([tooManyDeletes, rename, tooManyChanged], { allowDelete: ['b.com'] })).toBe(
      [
        'refusing to apply: the plan breaks 3 safety rules:',
        '  - 4 deletes exceed limits.max_deletes (3): a.com, b.com, c.com, shop.d.com [max_deletes]',
        '  - a.com → a.org looks like a rename: the service cannot rename a website, so a.com and its whole analytics history would be deleted [suspected_rename]',
        '  - 4 of the 12 in-scope websites (33.3%) would be updated or deleted: over limits.max_change_percent (25%) [max_change_percent]',
        'To apply anyway:',
        '  - [max_deletes] name each deleted domain (its analytics history is lost): --allow-delete a.com --allow-delete c.com --allow-delete shop.d.com; or raise the delete limit: --max-deletes 4',
        '  - [suspected_rename] name the old domain, exactly, to delete it (its analytics history is lost): --allow-delete a.com',
        '  - [max_change_percent] raise the limit for this run: --max-change-percent 34',
        'All at once: --allow-delete a.com --allow-delete c.com --allow-delete shop.d.com --max-change-percent 34',
      ].join('\n'),
    );
  });

  test('the one-line form leaves out the percentage when the named deletes bring the share under the limit', () => {
    const mostlyDeletes = { ...tooManyChanged, deletes: ['a.com', 'b.com', 'c.com'] };
    expect(refusalMessage([tooManyDeletes, mostlyDeletes], { allowDelete: [] }).split('\n').at(-1)).toBe(
      'All at once: --allow-delete a.com --allow-delete b.com --allow-delete c.com --allow-delete shop.d.com',
    );
  });
});

describe('exact domains only where a glob would wave a mistake through', () => {
  const empty: SafetyViolation = { rule: 'empty_config_prune', domains: ['a.com', 'b.com'] };

  test('an empty configuration with prune and a suspected rename need exact domains, not globs', () => {
    expect(unacknowledged([empty], { allowDelete: ['*.com'] })).toEqual([empty]);
    expect(unacknowledged([rename], { allowDelete: ['a.*'] })).toEqual([rename]);
    expect(unacknowledged([empty, rename], { allowDelete: ['a.com', 'b.com'] })).toEqual([]);
  });

  test('over-limit deletes still accept a glob', () => {
    expect(unacknowledged([tooManyDeletes], { allowDelete: ['*.com'] })).toEqual([]);
  });
});

describe('deletes named with --allow-delete count as acknowledged under the percentage rule too', () => {
  const mostlyDeletes: SafetyViolation = { ...tooManyChanged, deletes: ['a.com', 'b.com', 'c.com'] };

  test('naming every delete takes them out of the share', () => {
    expect(
      unacknowledged([tooManyDeletes, mostlyDeletes], { allowDelete: ['a.com', 'b.com', 'c.com', 'shop.d.com'] }),
    ).toEqual([]);
    expect(unacknowledged([mostlyDeletes], { allowDelete: ['e.com'] })).toEqual([mostlyDeletes]);
  });

  test('which flags acknowledged a violation, for the plan shown on apply', () => {
    const acks = { allowDelete: ['a.com', 'b.com', 'c.com', '*.d.com'] };
    expect(acknowledgedBy(tooManyDeletes, acks)).toEqual([
      '--allow-delete a.com',
      '--allow-delete b.com',
      '--allow-delete c.com',
      '--allow-delete *.d.com',
    ]);
    expect(acknowledgedBy(mostlyDeletes, acks)).toEqual([
      '--allow-delete a.com',
      '--allow-delete b.com',
      '--allow-delete c.com',
    ]);
    expect(acknowledgedBy(tooManyDeletes, { allowDelete: [], maxDeletes: 9 })).toEqual(['--max-deletes 9']);
    expect(acknowledgedBy(rename, { allowDelete: [] })).toBeUndefined();
  });
});

describe('acknowledged and unacknowledged split the violations', () => {
  test('a glob acknowledges over-limit deletes but not the rename among them', () => {
    const acks = { allowDelete: ['*.com'] };
    expect(acknowledged([tooManyDeletes, rename], acks)).toEqual([tooManyDeletes]);
    expect(unacknowledged([tooManyDeletes, rename], acks)).toEqual([rename]);
  });

  test('naming one delete of four brings 33.3% of 12 sites to 25%: exactly the limit, acknowledged', () => {
    const mostlyDeletes: SafetyViolation = { ...tooManyChanged, deletes: ['a.com', 'b.com', 'c.com'] };
    expect(acknowledged([mostlyDeletes], { allowDelete: ['a.com'] })).toEqual([mostlyDeletes]);
    expect(acknowledgedBy(mostlyDeletes, { allowDelete: ['a.com'] })).toEqual(['--allow-delete a.com']);
    expect(acknowledged([{ ...mostlyDeletes, total: 11 }], { allowDelete: ['a.com'] })).toEqual([]); // 27.3%
  });

  test('a raised percentage is named among the flags that acknowledged the share', () => {
    expect(acknowledgedBy(tooManyChanged, { allowDelete: [], maxChangePercent: 40 })).toEqual([
      '--max-change-percent 40',
    ]);
  });

  test('only the exact domain is named as acknowledging a rename, not a glob given beside it', () => {
    expect(acknowledgedBy(rename, { allowDelete: ['a.*', 'a.com'] })).toEqual(['--allow-delete a.com']);
  });

  test('only the exact domains are named as acknowledging an empty configuration with prune, not a glob', () => {
    const empty: SafetyViolation = { rule: 'empty_config_prune', domains: ['a.com', 'b.com'] };
    expect(acknowledgedBy(empty, { allowDelete: ['*.com', 'a.com', 'b.com'] })).toEqual([
      '--allow-delete a.com',
      '--allow-delete b.com',
    ]);
  });

  test('a domain this target only updates is not named for its share, though another target deletes it', () => {
    // Across targets, --allow-delete e.com is accepted because some target deletes e.com; here it is an update.
    const oneDelete: SafetyViolation = { ...tooManyChanged, deletes: ['a.com'] };
    expect(acknowledgedBy(oneDelete, { allowDelete: ['e.com'], maxChangePercent: 40 })).toEqual([
      '--max-change-percent 40',
    ]);
  });
});

describe('the refusal as data (the library returns it)', () => {
  test('a share over the limit asks for the percentage only: its updates cannot be named', () => {
    expect(refusalOf([tooManyChanged], { allowDelete: [] }).needed).toEqual([
      { violation: tooManyChanged, allowDelete: [], limit: 34 },
    ]);
  });
});
