// The redaction registry holds what is in use: a released Secret's value stops
// being redacted once no other Secret holds it (a reloading process, `watch`).
import { describe, expect, it } from 'vitest';
import { redact, Secret } from '../../src/model/secret.js';

describe('Secret.release', () => {
  it('keeps a value redacted while another Secret holds it, and forgets it after the last', () => {
    const value = `released-secret-${process.pid}-0123456789`;
    const first = new Secret(value);
    const second = new Secret(value);
    expect(redact(`key ${value}`)).toBe('key (secret)');
    first.release();
    first.release(); // a second release of the same Secret changes nothing
    expect(redact(`key ${value}`)).toBe('key (secret)');
    second.release();
    expect(redact(`key ${value}`)).toBe(`key ${value}`);
    expect(`${second}`).toBe('(secret)'); // released, still never printed by itself
  });
});
