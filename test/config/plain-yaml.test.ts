/**
 * The plain-YAML reader (plain-yaml.ts) must read every file it accepts
 * exactly as both general parsers do (js-yaml, the quick path's, and yaml,
 * the full parse's): the same data, and each website entry at the same
 * line and column. Whatever it is unsure of, it declines. Checked on written
 * layouts, on generated files (every layout of the subset it must read, and
 * anything YAML allows or forbids around it), and on random edits of them.
 */
import { fc, test } from '@fast-check/vitest';
import { load as jsYamlLoad } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { readPlainYaml } from '../../src/config/plain-yaml.js';
import { locate } from '../../src/config/positions.js';
import { parseConfigText } from '../../src/config/yaml-file.js';

/** Whether the reader read `text`; when it did, that it read it as both parsers do. */
function readsAsParsers(text: string): boolean {
  const plain = readPlainYaml(text);
  if (plain === undefined) return false;
  let expected: unknown;
  expect(() => {
    expected = jsYamlLoad(text);
  }, 'js-yaml reads what the reader read').not.toThrow();
  expect(plain.data).toStrictEqual(expected);
  const full = parseConfigText(text, 'websites.yaml');
  expect(full.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  expect(plain.data).toStrictEqual(full.data);
  const websites = (full.data as { websites?: unknown }).websites;
  const count = Array.isArray(websites) ? websites.length : 0;
  expect(plain.websiteStarts).toHaveLength(count);
  for (const [index, offset] of plain.websiteStarts.entries()) {
    const { line, column } = locate(full, ['websites', index]);
    const before = text.slice(0, offset).split('\n');
    expect({ line: before.length, column: before.at(-1)!.length + 1 }).toEqual({ line, column });
  }
  return true;
}

const READ: Record<string, string> = {
  'the benchmark layout':
    'version: 1\ndefaults:\n  exclude_ips: [10.0.0.1, 10.0.0.2]\nwebsites:\n  - domain: a.example.com\n  - domain: b.example.com\n    email: true\n',
  'lists at their key, comments, blank lines':
    '# sites\nversion: 1   # the format\n\nwebsites:\n- domain: a.example.com # shop\n  ignore_changes:\n  - email\n  - field: favorite\n    until: 2026-01-01\n  email: false\n\n- domain: b.example.com\napi:\n  url: https://stats.example.com:8443/base\n',
  'wider indentation and spaces after the dash':
    'websites:\n    -   domain: a.example.com\n        exclude_params: [utm_source, ref]\n    -   domain: b.example.com\nprune: true\n',
  'quoted values and core-schema scalars':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
    "version: 1\nx-a: 'it''s # not a comment'\nx-b: \"a: b\"\nx-c: ~\nx-d: 0x1F\nx-e: .inf\nx-f: -1.5e3\nx-g: FALSE\nx-h: a#b\nx-i: -x\nx-j: {}\nx-k: []\nx-l: ${PASSWORD}\nx-m: é ☃ 𝄞\nwebsites: []\n",
  'CRLF line ends': 'version: 1\r\nwebsites:\r\n  - domain: a.example.com\r\n    email: true\r\n',
  'scalar entries': 'websites:\n  - a.example.com\n  - 10.0.0.1\nversion: 1\n',
  'keys that begin with another key': 'ab: 1\na: 2\nabc:\n  a: 3\n  ab: 4\na_b: 5\n',
  'more distinct keys than it remembers': `${Array.from({ length: 40 }, (_, i) => `k${i}: ${i}`).join('\n')}\nk39x: y\n`,
  'no line break at the end, spaces inside a flow list': 'a: 1\nb: [x , y]',
  'texts the core schema reads only with a tag, two quotes inside double quotes': 'x: 0b11\ny: "a\'\'b"\n',
  'nested mappings': 'limits:\n  max_deletes: 5\n  nested:\n    deeper: x\nmanage:\n  include: ["*.example.com"]\n',
};

const DECLINED: Record<string, string> = {
  'an anchor and alias': 'a: &x 1\nb: *x\n',
  'a tag': 'a: !!str 1\n',
  'a block scalar': 'a: |\n  text\n',
  'a multi-line plain scalar': 'a: one\n  two\n',
  'a multi-line quoted scalar': 'a: "one\n  two"\n',
  'an escape in double quotes': 'a: "tab\\there"\n',
  'a flow mapping': 'a: {b: 1}\n',
  'a quoted key': '"a": 1\n',
  'a duplicate key': 'a: 1\na: 2\n',
  'a __proto__ key': '__proto__: 1\n',
  'a tab': 'a:\t1\n',
  'a document marker': '---\na: 1\n',
  'a directive': '%YAML 1.2\n---\na: 1\n',
  'a top-level list': '- a\n- b\n',
  'an indented document': '  a: 1\n',
  'an empty value': 'a:\nb: 1\n',
  'an empty entry': 'a:\n  -\n    b: 1\n',
  'a nested list on the dash line': 'a:\n  - - b\n',
  'a value that is a mapping': 'a: b: c\n',
  'a key with no space after the colon': 'a:1\n',
  'a comment without a space before it': "a: 'x'# c\n",
  'a lone CR': 'a: 1\rb: 2\n',
  'an empty file': '',
  'comments only': '# nothing\n',
  'a control character': 'a: \u0001\n',
  'a key where a list entry belongs': 'a:\n  - x\n  b: 1\n',
  'a deeper line that continues nothing': 'a: 1\n    b: 2\n',
  'a list less indented than its key': 'a:\n  b:\n- x\n',
  'a flow item that is a mapping': 'a: [b: c]\n',
  'flow items without a comma': "a: ['x' 'y']\n",
  'a number too large for a double': 'x: 1e310\n',
  'a lone dash as a value': 'a: -\n',
};

describe('readPlainYaml', () => {
  it.each(Object.entries(READ))('reads %s as both parsers do', (_name, text) => {
    expect(readsAsParsers(text)).toBe(true);
  });

  it.each(Object.entries(DECLINED))('declines %s', (_name, text) => {
    expect(readPlainYaml(text)).toBeUndefined();
  });

  it('reads 10,000 entries in one pass, with a start for each', () => {
    const lines = ['version: 1', 'websites:'];
    for (let i = 0; i < 10_000; i++)
      lines.push(`  - domain: site-${i}.example.com${i % 20 === 0 ? '\n    email: true' : ''}`);
    const text = `${lines.join('\n')}\n`;
    const plain = readPlainYaml(text)!;
    expect(plain.data).toStrictEqual(jsYamlLoad(text));
    expect(plain.websiteStarts).toHaveLength(10_000);
    expect(text.slice(plain.websiteStarts[9_999], plain.websiteStarts[9_999]! + 8)).toBe('domain: ');
  });
});

// Generated files: a tree of mappings, lists and scalars, written in one of many layouts.
type Tree = { map: Array<[string, Tree]> } | { list: Tree[] } | { scalar: string };

/** Plain scalars the subset reads: core-schema look-alikes and texts with inner indicators. */
const PLAIN = [
  'a.example.com',
  'site-1.example.com',
  '10.0.0.1',
  '1',
  '0',
  '-1',
  '1.5',
  '-1.5e3',
  '1e3',
  '.inf',
  '-.INF',
  '.nan',
  '~',
  'null',
  'Null',
  'true',
  'False',
  'yes',
  'no',
  'on',
  '0x1F',
  '0o17',
  '+1',
  '012',
  '2026-01-01',
  'https://stats.example.com:8443/x',
  'a#b',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference in YAML, not a template
  '${PW_1}',
  'é ☃',
  '-x',
  'a b',
  'utm_source',
];
/** Texts that need quotes (or that the reader must decline when written bare). */
const SPECIAL = [
  '*.example.com',
  '',
  ' x',
  'x ',
  'a: b',
  'a #b',
  '#x',
  '- x',
  '[x]',
  '{x}',
  '&x',
  '*x',
  '!x',
  '|',
  '>',
  "'",
  '"',
  "it's",
  'x:',
  '?x',
  ':x',
  '%x',
  '@x',
  '`x',
  'a,b',
  '\\',
];
const SUBSET_KEYS = ['domain', 'email', 'exclude_ips', 'websites', 'version', 'x-note', 'a_b', 'on', 'K2'];
/** Keys the core schema reads as null or a boolean: js-yaml's key is then "" or "true", and the reader declines. */
const KEYS = [...SUBSET_KEYS, 'true', 'null'];

/** Trees of mappings (keys from `keys`), lists and scalars (from `scalar`), a few levels deep. */
const treeOf = (scalar: fc.Arbitrary<string>, keys: readonly string[]): fc.Arbitrary<Tree> =>
  fc.letrec<{ node: Tree }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar.map((text) => ({ scalar: text })),
      fc
        .uniqueArray(fc.tuple(fc.constantFrom(...keys), tie('node')), { selector: ([key]) => key, maxLength: 4 })
        .map((map) => ({ map })),
      fc.array(tie('node'), { maxLength: 3 }).map((list) => ({ list })),
    ),
  })).node;
const tree = treeOf(fc.oneof(fc.constantFrom(...PLAIN, ...SPECIAL), fc.string({ maxLength: 6 })), KEYS);

interface Layout {
  indent: number;
  /** Lists at their key's indentation (`key:\n- x`). */
  compact: boolean;
  dashSpaces: number;
  comments: boolean;
  crlf: boolean;
  /** How a scalar is written: bare, quoted, or as a flow list when it is a list of scalars. */
  quoting: 'plain' | 'single' | 'double' | 'mixed';
  flowLists: boolean;
}

const layout: fc.Arbitrary<Layout> = fc.record({
  indent: fc.integer({ min: 1, max: 4 }),
  compact: fc.boolean(),
  dashSpaces: fc.integer({ min: 1, max: 3 }),
  comments: fc.boolean(),
  crlf: fc.boolean(),
  quoting: fc.constantFrom('plain', 'single', 'double', 'mixed'),
  flowLists: fc.boolean(),
});

function writeScalar(text: string, style: Layout['quoting'], salt: number): string {
  const choice = style === 'mixed' ? (['plain', 'single', 'double'] as const)[salt % 3]! : style;
  if (choice === 'single') return `'${text.replaceAll("'", "''")}'`;
  if (choice === 'double') return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  return text;
}

/** The lines of `node`, written after `lead` (`key:` or `-`, which starts at `column`). */
function write(node: Tree, lead: string, column: number, style: Layout, out: string[]): void {
  const comment = style.comments && out.length % 3 === 1 ? ' # note' : '';
  const dash = lead.endsWith('-');
  const gap = dash ? ' '.repeat(style.dashSpaces) : ' ';
  const pad = (width: number) => ' '.repeat(width);
  if ('scalar' in node) {
    out.push(`${lead}${gap}${writeScalar(node.scalar, style.quoting, out.length)}${comment}`);
    return;
  }
  if ('list' in node && style.flowLists && node.list.every((item) => 'scalar' in item)) {
    const items = node.list.map((item) => writeScalar((item as { scalar: string }).scalar, style.quoting, out.length));
    out.push(`${lead}${gap}[${items.join(', ')}]${comment}`);
    return;
  }
  const entries: readonly unknown[] = 'map' in node ? node.map : node.list;
  if (entries.length === 0) {
    out.push(`${lead}${gap}${'map' in node ? '{}' : '[]'}${comment}`);
    return;
  }
  if ('map' in node && dash) {
    // `- key: value`, the next keys under the first.
    const keyColumn = column + 1 + style.dashSpaces;
    for (const [index, [key, value]] of node.map.entries()) {
      write(value, index === 0 ? `${lead}${gap}${key}:` : `${pad(keyColumn)}${key}:`, keyColumn, style, out);
    }
    return;
  }
  out.push(`${lead}${comment}`);
  if (style.comments) out.push(`${pad(column)}# ${'map' in node ? 'keys' : 'entries'}`, '');
  if ('map' in node) {
    for (const [key, value] of node.map)
      write(value, `${pad(column + style.indent)}${key}:`, column + style.indent, style, out);
    return;
  }
  const entryColumn = style.compact && !dash ? column : column + style.indent;
  for (const item of node.list) write(item, `${pad(entryColumn)}-`, entryColumn, style, out);
}

function writeFile(map: Array<[string, Tree]>, style: Layout): string {
  const out: string[] = [];
  for (const [key, value] of map) write(value, `${key}:`, 0, style, out);
  return `${out.join(style.crlf ? '\r\n' : '\n')}\n`;
}

/** A file of the subset the reader must read: simple keys, plain or quoted scalars without escapes. */
const subsetScalar = fc.constantFrom(...PLAIN.filter((text) => !text.includes(' ') || text === 'a b'));
const subsetTree = treeOf(subsetScalar, SUBSET_KEYS);
const topLevel = (node: fc.Arbitrary<Tree>, keys = KEYS) =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...keys), node), { selector: ([key]) => key, minLength: 1, maxLength: 4 });

describe('readPlainYaml on generated files', () => {
  test.prop([topLevel(subsetTree, SUBSET_KEYS), layout], { seed: 25, numRuns: 400 })(
    'reads every file of its subset, as both parsers do',
    (map, style) => {
      // Escapes are outside the subset, and so are flow-list items with `:`, `#` or braces.
      const inSubset = { ...style, quoting: style.quoting === 'double' ? 'single' : style.quoting } as Layout;
      const text = writeFile(map, { ...inSubset, flowLists: style.flowLists && style.quoting === 'plain' });
      // A non-empty flow list of websites is left to the parser (it knows each entry's position).
      // Outside the subset: a list entry that is itself a list (`-` alone on its line), and a non-empty flow
      // list of websites (the parser knows each entry's position).
      const outside =
        /\[[^\]\n]*[:#{]/.test(text) || /^websites: \[[^\]]/m.test(text) || /^ *-( # note)?\r?$/m.test(text);
      expect(readsAsParsers(text) || outside).toBe(true);
    },
  );

  test.prop([topLevel(tree), layout], { seed: 26, numRuns: 600 })(
    'reads anything else only as both parsers do',
    (map, style) => {
      readsAsParsers(writeFile(map, style));
    },
  );

  test.prop(
    [
      topLevel(subsetTree),
      layout,
      fc.array(fc.tuple(fc.nat(), fc.string({ maxLength: 2 }), fc.nat(2)), { minLength: 1, maxLength: 3 }),
    ],
    {
      seed: 27,
      numRuns: 600,
    },
  )('reads a file with random edits only as both parsers do', (map, style, edits) => {
    let text = writeFile(map, style);
    for (const [at, insert, remove] of edits) {
      const where = at % (text.length + 1);
      text = text.slice(0, where) + insert + text.slice(where + remove);
    }
    readsAsParsers(text);
  });
});
