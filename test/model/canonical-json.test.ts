/** canonicalJsonOfData is canonicalJson the fast way: the same text for any plain data. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonOfData } from '../../src/model/canonical-json.js';

// Inherited names, integer-like keys (which objects list first) and ordinary ones.
const keyArb = fc.oneof(fc.string(), fc.constantFrom('toString', 'constructor', 'valueOf', '10', '9', 'a', 'B', 'é'));
const dataArb = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie('value')),
    fc.dictionary(keyArb, tie('value')),
  ),
}));

describe('canonicalJsonOfData', () => {
  test.prop([fc.dictionary(keyArb, dataArb.value)], { seed: 11, numRuns: 500 })(
    'writes what canonicalJson writes',
    (data) => {
      expect(canonicalJsonOfData(data)).toBe(canonicalJson(data));
    },
  );

  it('sorts keys at every level, drops undefined members and writes undefined entries as null', () => {
    const data = { b: [{ z: 1, a: undefined }, undefined], a: { '9': true, '10': 'x' } };
    expect(canonicalJsonOfData(data)).toBe('{"a":{"10":"x","9":true},"b":[{"z":1},null]}');
  });

  it('writes a key that objects inherit only where it is an own member', () => {
    const data: object[] = [{ toString: 'own' }, { other: 1 }];
    expect(canonicalJsonOfData(data)).toBe('[{"toString":"own"},{"other":1}]');
  });
});
