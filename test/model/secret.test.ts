// The redaction registry holds what is in use: a released Secret's value stops
// being redacted once no other Secret holds it (a reloading process, `watch`).
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { forgetRegisteredSecrets, redact, Secret, UnresolvedSecret } from '../../src/model/secret.js';

describe('forgetRegisteredSecrets', () => {
  it('stops redacting every value registered so far; a value registered after it is redacted again', () => {
    new Secret('forgotten-value-0123456789');
    new Secret('another-forgotten-value-0123');
    forgetRegisteredSecrets();
    expect(redact('forgotten-value-0123456789 another-forgotten-value-0123')).toBe(
      'forgotten-value-0123456789 another-forgotten-value-0123',
    );
    new Secret('forgotten-value-0123456789');
    expect(redact('forgotten-value-0123456789')).toBe('(secret)');
  });
});

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

describe('Secret', () => {
  const value = `never-printed-${process.pid}-abcdef`;

  it('shows a placeholder wherever it is printed; only reveal() gives the value', () => {
    const secret = new Secret(value);
    expect(JSON.stringify({ apiKey: secret })).toBe('{"apiKey":"(secret)"}');
    expect(String(secret)).toBe('(secret)');
    expect(`${secret}`).toBe('(secret)');
    expect(inspect({ apiKey: secret })).toBe('{ apiKey: (secret) }');
    expect(secret.reveal()).toBe(value);
    secret.release();
  });

  it('redacts every occurrence of every value held, from 4 characters on', () => {
    const long = new Secret(`${value}-long`);
    expect(redact(value)).toBe(value); // released by the tests above
    const four = new Secret('k3y!');
    const three = new Secret('abc'); // would redact ordinary words: never printed directly, but not scrubbed
    expect(redact(`${value}-long, again ${value}-long; k3y!; abc`)).toBe('(secret), again (secret); (secret); abc');
    for (const secret of [long, four, three]) secret.release();
    expect(redact('k3y!')).toBe('k3y!');
  });

  it('an unresolved password names its variable when revealed, and only that', () => {
    const unset = new UnresolvedSecret('SITESYNC_SHOP_PASSWORD');
    expect(() => unset.reveal()).toThrow('the password from SITESYNC_SHOP_PASSWORD was not resolved');
    expect(redact('SITESYNC_SHOP_PASSWORD')).toBe('SITESYNC_SHOP_PASSWORD'); // the name of a variable is not a secret
    expect(JSON.stringify(unset)).toBe('"(secret)"');
  });
});
