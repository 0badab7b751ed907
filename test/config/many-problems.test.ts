/**
 * Issue 23 item 13: a file of tens of thousands of unknown keys. Finding each
 * problem's position scanned the mapping once per problem (quadratic: 30,000
 * keys took 10.8 s, 100,000 over 4 minutes); and every problem was listed.
 * Linearity is shown by a count (how often a key of the document is read),
 * never by time.
 */

import { describe, expect, it } from 'vitest';
import { isMap, type Pair } from 'yaml';
import { MAX_LISTED_PROBLEMS } from '../../src/config/index.js';
import { checkSchema } from '../../src/config/schema.js';
import { parseConfigText } from '../../src/config/yaml-file.js';
import { loadText } from './helpers.js';

function unknownKeys(count: number): string {
  const lines = ['version: 1'];
  for (let i = 0; i < count; i++) lines.push(`not_a_field_${i}: 1`);
  lines.push('websites:', '  - domain: a.example.com');
  return `${lines.join('\n')}\n`;
}

/** Checks `count` unknown keys and returns how many times a top-level key node was read. */
function keyReadsFor(count: number): { reads: number; problems: number } {
  const parsed = parseConfigText(unknownKeys(count), 'websites.yaml');
  const top = parsed.doc.contents;
  if (!isMap(top)) throw new Error('expected a mapping');
  let reads = 0;
  for (const pair of top.items as Pair[]) {
    const key = pair.key;
    Object.defineProperty(pair, 'key', {
      get: () => {
        reads++;
        return key;
      },
    });
  }
  const { problems } = checkSchema(parsed, parsed.data);
  return { reads, problems: problems.length };
}

describe('a file with many unknown keys', () => {
  it('places every problem with a bounded number of key reads per key (linear, not quadratic)', () => {
    for (const count of [1_000, 4_000]) {
      const { reads, problems } = keyReadsFor(count);
      expect(problems).toBe(count);
      // A scan per problem read count²/2 keys (8,000,000 for 4,000); an index reads each a few times.
      expect(reads).toBeLessThanOrEqual(8 * count);
    }
  });

  it('lists the first problems of 30,000 and counts the rest', () => {
    const result = loadText(unknownKeys(30_000));
    expect(result.state).toBeUndefined();
    expect(result.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result.omitted).toEqual({ errors: 30_000 - MAX_LISTED_PROBLEMS, warnings: 0 });
    expect(result.lines[0]).toMatch(/^websites\.yaml:2:1: not_a_field_0 is not a known field /);
    expect(result.lines.at(-1)).toMatch(/^websites\.yaml:101:1: not_a_field_99 /);
  });

  it('reports 200,000 unknown keys (a file within the 4 MiB limit) instead of overflowing the stack', () => {
    const lines = ['version: 1', 'websites:', '  - domain: a.example.com'];
    for (let i = 0; i < 200_000; i++) lines.push(`k${i}: 1`);
    const result = loadText(`${lines.join('\n')}\n`);
    expect(result.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(result.omitted.errors).toBe(200_000 - MAX_LISTED_PROBLEMS);
  }, 120_000);
});
