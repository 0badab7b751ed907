import { describe, expect, test } from 'vitest';
import { refusalMessage, unacknowledged } from '../../src/apply/acknowledge.js';
import type { SafetyViolation } from '../../src/model/plan.js';

const tooManyDeletes: SafetyViolation = {
  rule: 'max_deletes',
  message: '4 deletes exceed limits.max_deletes (3): a.com, b.com, c.com, shop.d.com',
  domains: ['a.com', 'b.com', 'c.com', 'shop.d.com'],
  limit: 3,
  actual: 4,
};
const rename: SafetyViolation = {
  rule: 'suspected_rename',
  message: 'a.com → a.org looks like a rename',
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
});

describe('refusalMessage', () => {
  test('names each rule and the exact flags that would acknowledge it', () => {
    expect(refusalMessage([tooManyDeletes, rename], { allowDelete: ['b.com'] })).toBe(
      [
        'refusing to apply: the plan breaks 2 safety rules:',
        '  - 4 deletes exceed limits.max_deletes (3): a.com, b.com, c.com, shop.d.com [max_deletes]',
        '  - a.com → a.org looks like a rename [suspected_rename]',
        'To apply anyway, acknowledge each domain whose analytics history would be lost:',
        '  --allow-delete a.com --allow-delete c.com --allow-delete shop.d.com',
        'or raise the delete limit: --max-deletes 4 (covers the delete limit only)',
      ].join('\n'),
    );
  });
});
