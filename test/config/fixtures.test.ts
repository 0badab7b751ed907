/**
 * Every fixture in test/fixtures/config named invalid-* or warning-* (a file,
 * or a directory of files) against its sibling .expected.txt: the exact
 * messages with file:line:column, errors first, then warnings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatProblem, loadConfig } from '../../src/config/index.js';

const DIR = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
const ENV = {
  SITESYNC_FIXTURE_PASSWORD: 'fixture-secret',
  SITESYNC_LONG_PASSWORD: 'x'.repeat(129),
  SITESYNC_EMPTY_PASSWORD: '',
  VAULT_PASSWORD: 'vault-secret-0001',
};

const fixtures = readdirSync(DIR)
  .filter((name) => /^(invalid|warning)-/.test(name) && !name.endsWith('.expected.txt'))
  .sort();

function expected(name: string): string[] {
  const text = readFileSync(`${DIR}${name.replace(/\.ya?ml$/, '')}.expected.txt`, 'utf8');
  return text.split('\n').filter((line) => line !== '');
}

describe('config fixtures', () => {
  it('has at least 30 distinct invalid inputs', () => {
    expect(fixtures.filter((name) => name.startsWith('invalid-')).length).toBeGreaterThanOrEqual(30);
  });

  it.each(fixtures)('%s', async (name) => {
    // With validate's advice (prune without manage, expired ignore rules) on a fixed day, so each file shows all that validate prints.
    const result = await loadConfig({ files: [name], cwd: DIR, env: ENV, advice: true, today: '2026-07-01' });
    const lines = [...result.errors, ...result.warnings].map(formatProblem);
    expect(lines).toEqual(expected(name));
    if (name.startsWith('invalid-')) {
      expect(result.state).toBeUndefined();
      expect(result.errors.length).toBeGreaterThan(0);
    } else {
      expect(result.errors).toEqual([]);
      expect(result.state?.warnings).toEqual(result.warnings);
      // Every warning fixture holds websites: a file must never drop out of the state silently.
      expect(result.state?.websites.length ?? 0).toBeGreaterThan(0);
    }
  });
});
