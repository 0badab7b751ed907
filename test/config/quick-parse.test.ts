/**
 * The fast reading of a file (quick-parse.ts) must give exactly what the full
 * parse gives: the same data and the same position for every website; and it
 * must decline every file that only the full parse reads right.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { locate, offsetOf } from '../../src/config/positions.js';
import { quickParse } from '../../src/config/quick-parse.js';
import { parseConfigText } from '../../src/config/yaml-file.js';

const LAYOUTS: Record<string, string> = {
  block: 'version: 1\nwebsites:\n  - domain: a.example.com\n    email: true\n  - domain: b.example.com\n',
  'flow entries': 'version: 1\nwebsites: [{domain: a.example.com}, {domain: "b.example.com", email: false}]\n',
  'entry on the next line, comments, blank lines':
    '# sites\nversion: 1\nwebsites:\n  -\n    domain: a.example.com\n  - # note\n    domain: b.example.com\n\n\n  -   domain: c.example.com\n      exclude_ips: |\n        10.0.0.1\n        10.0.0.2\n',
  'no indent, quoted keys':
    'version: 1\nwebsites:\n- \'domain\': a.example.com\n- "domain": b.example.com\n  favorite: true\n',
  'CRLF and BOM': '\uFEFFversion: 1\r\nwebsites:\r\n  - domain: a.example.com\r\n  - domain: b.example.com\r\n',
  'non-ASCII before': 'version: 1\nx-note: "é ☃ 𝄞"\nwebsites:\n  - domain: a.example.com\n',
  'websites first, defaults after': 'websites:\n  - domain: a.example.com\ndefaults:\n  email: true\nversion: 1\n',
  'values on the next lines after comments, CRLF':
    'version: 1\r\nprotect: # kept\r\n\r\n  # never deleted\r\n  - a.example.com\r\nlimits:\r\n    max_deletes: 3\r\nwebsites:\r\n- domain: a.example.com\r\n',
  'quoted values and flow lists': "version: 1\nmanage: {include: ['*.example.com']}\nprune: 'true'\nwebsites: []\n",
};

/** Checks that a file read quickly reads as the full parse reads it; returns whether it was read quickly. */
function expectSameAsFullParse(text: string, options: { mayDecline?: boolean } = {}): boolean {
  const quick = quickParse(text, 'websites.yaml');
  const full = parseConfigText(text, 'websites.yaml');
  expect(full.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  if (options.mayDecline && quick === undefined) return false;
  expect(quick).toBeDefined();
  expect(quick!.data).toEqual(full.data);
  const sites = (full.data as { websites?: unknown[] }).websites ?? [];
  for (const index of sites.keys()) {
    expect(locate(quick!.source, ['websites', index])).toEqual(locate(full, ['websites', index]));
  }
  // Top-level keys and their values are placed without the full parse (a problem on one of 190,000 keys).
  for (const key of Object.keys(full.data as object)) {
    const known = quick!.source.quick!;
    expect(known.topLevel(key, 'key'), key).toBe(offsetOf(full, [key], 'key'));
    const value = known.topLevel(key, 'value');
    if ((full.data as Record<string, unknown>)[key] !== null) expect(value, `${key}'s value`).toBeDefined();
    if (value !== undefined) expect(value, `${key}'s value`).toBe(offsetOf(full, [key], 'value'));
  }
  return true;
}

describe('quickParse', () => {
  it.each(Object.entries(LAYOUTS))('reads %s as the full parse does', (_name, text) => {
    expectSameAsFullParse(text);
  });

  it('reads the examples and valid fixtures as the full parse does (those with anchors go the full way)', () => {
    const dirs = ['../../examples/', '../../examples/split/', '../fixtures/config/'];
    const files = dirs.flatMap((dir) => {
      const path = fileURLToPath(new URL(dir, import.meta.url));
      return readdirSync(path)
        .filter((name) => /^(?!invalid-).*\.ya?ml$/.test(name))
        .map((name) => `${path}${name}`);
    });
    const quick = files.filter((file) => expectSameAsFullParse(readFileSync(file, 'utf8'), { mayDecline: true }));
    expect(quick.length).toBeGreaterThan(files.length / 2);
  });

  it.each([
    ['an alias', 'version: 1\nx-a: &a {email: true}\nwebsites:\n  - <<: *a\n    domain: a.example.com\n'],
    ['an anchor', 'version: 1\nwebsites:\n  - &a\n    domain: a.example.com\n'],
    ['a tag', 'version: 1\nwebsites:\n  - domain: !!str a.example.com\n'],
    ['an unknown tag', 'version: 1\napi:\n  url: !env URL\n'],
    ['a %YAML directive', '%YAML 1.1\n---\nversion: 1\nwebsites:\n  - domain: a.example.com\n    email: yes\n'],
    ['a duplicate key', 'version: 1\nversion: 1\n'],
    ['two documents', 'version: 1\n---\nversion: 1\n'],
    ['a lone CR', 'version: 1\rwebsites: []\n'],
    ['a syntax error', 'version: 1\nwebsites: [\n'],
    ['an empty file', ''],
    ['a list at the top', '- domain: a.example.com\n'],
  ])('declines %s (the full parse reports or reads it)', (_name, text) => {
    expect(quickParse(text, 'websites.yaml')).toBeUndefined();
  });

  it('takes positions other than a website entry from a full parse, made only then', () => {
    const text = LAYOUTS['entry on the next line, comments, blank lines']!;
    const quick = quickParse(text, 'websites.yaml')!;
    const full = parseConfigText(text, 'websites.yaml');
    expect(locate(quick.source, ['websites', 2, 'exclude_ips'])).toEqual(locate(full, ['websites', 2, 'exclude_ips']));
  });
});
