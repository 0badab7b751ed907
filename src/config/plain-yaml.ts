/**
 * A reader for the plain block YAML that nearly every websites.yaml is: keys
 * and `- ` entries by indentation, plain or one-line quoted scalars, one-line
 * flow lists of plain or quoted items, comments. It reads such a file line by
 * line, two to three times faster than js-yaml, which builds an event per
 * node first (10,000 sites: ~25-30 ms cold against ~70), and that time is
 * the plan's: the listing waits for it. Any line outside that subset
 * (anchors, tags, block scalars, multi-line scalars, flow mappings, quoted
 * keys, a duplicate key, a tab, a second document...) makes it decline, and
 * js-yaml reads the file. Plain scalars resolve through js-yaml's own YAML
 * 1.2 core-schema resolvers; test/config/plain-yaml.test.ts checks every file
 * it reads against both parsers (js-yaml and the full parse's yaml).
 */
import { CORE_SCHEMA, NOT_RESOLVED, type ScalarTagDefinition } from 'js-yaml';
import { runSteps } from './steps.js';

export interface PlainYaml {
  data: Record<string, unknown>;
  /** Offset of each entry of the top-level `websites` list (its first key, or its scalar). */
  websiteStarts: number[];
}

type YamlMap = Record<string, unknown>;

interface Frame {
  indent: number;
  node: YamlMap | unknown[];
}

/** A key whose value comes on the next lines (a nested mapping or list). */
interface Pending {
  map: YamlMap;
  key: string;
  indent: number;
}

/** Keys remembered for reuse: past this many distinct keys, the rest are sliced each time. */
const MAX_KNOWN_KEYS = 32;

/** Text read between two pauses of `readPlainYamlSteps`: a few milliseconds of reading. */
const BYTES_PER_STEP = 64 * 1024;

/** Declines the file: thrown inside the reader, caught at its entry. */
const DECLINE = Symbol('decline');

/** The core schema's implicit resolvers (null, bool, int, float), in its order, by the first character they accept. */
const IMPLICIT = CORE_SCHEMA.tags.filter(
  (tag): tag is ScalarTagDefinition => tag.nodeKind === 'scalar' && tag.implicit,
);
const ANY_FIRST = IMPLICIT.filter((tag) => tag.implicitFirstChars === null);
const RESOLVERS = new Map(
  IMPLICIT.flatMap((tag) => tag.implicitFirstChars ?? []).map((first) => [
    first,
    IMPLICIT.filter((tag) => tag.implicitFirstChars === null || tag.implicitFirstChars.includes(first)),
  ]),
);

/** Characters a plain value may not start with (YAML indicators this reader leaves to the parser). */
const INDICATOR = new Set([...'[]{},&*!|>\'"%@`#?:-']);
/** What a plain flow-list item may not hold here (YAML allows some of it; the parser reads those). */
const FLOW_UNSURE = /^-(?: |$)|[[\]{}#'":&*!|>%@`?]/;
/** A decimal number the core schema would read, had it fit in a double. */
const OUT_OF_RANGE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/** Characters outside YAML's printable set, or that YAML 1.1 readers take as line breaks; a tab. */
const UNUSUAL = /[^\n\r\x20-\x7E\u00A0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]|\r(?!\n)/u;

export function readPlainYaml(source: string): PlainYaml | undefined {
  return runSteps(readPlainYamlSteps(source));
}

/** The same, pausing (`yield`) every BYTES_PER_STEP of text: a 4 MiB file never holds the event loop long. */
export function* readPlainYamlSteps(source: string): Generator<void, PlainYaml | undefined> {
  if (UNUSUAL.test(source)) return undefined;
  try {
    return yield* new Reader(source).read();
  } catch (error) {
    if (error === DECLINE) return undefined;
    throw error;
  }
}

const decline = (): never => {
  throw DECLINE;
};

class Reader {
  readonly #text: string;
  readonly #stack: Frame[] = [];
  #root: YamlMap | undefined;
  #pending: Pending | undefined;
  #websites: unknown[] | undefined;
  readonly #starts: number[] = [];
  /** The keys read so far, checked once each: a file repeats a handful of keys thousands of times. */
  readonly #keys: string[] = [];

  constructor(text: string) {
    this.#text = text;
  }

  *read(): Generator<void, PlainYaml> {
    const text = this.#text;
    let pause = BYTES_PER_STEP;
    for (let start = 0; start < text.length; ) {
      if (start >= pause) {
        pause = start + BYTES_PER_STEP;
        yield;
      }
      const newline = text.indexOf('\n', start);
      const next = newline === -1 ? text.length : newline + 1;
      let end = newline === -1 ? text.length : newline;
      if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
      let at = start;
      while (at < end && text.charCodeAt(at) === 32) at += 1;
      if (at < end && text[at] !== '#') this.#line(at - start, at, end);
      start = next;
    }
    if (this.#root === undefined || this.#pending !== undefined) decline();
    return { data: this.#root!, websiteStarts: this.#starts };
  }

  /** One line with content: `indent` spaces, then text from `at` to `end`. */
  #line(indent: number, at: number, end: number): void {
    const text = this.#text;
    const entry = text[at] === '-' && (at + 1 === end || text[at + 1] === ' ');
    if (this.#root === undefined) {
      // The document: a mapping at column 0 (no `---`, `%` directive or top-level list).
      if (indent !== 0 || entry) decline();
      this.#root = {};
      this.#stack.push({ indent: 0, node: this.#root });
    } else if (this.#pending !== undefined) {
      const { map, key, indent: keyIndent } = this.#pending;
      this.#pending = undefined;
      // A list may sit at its key's indentation; a mapping must be deeper.
      if (entry ? indent < keyIndent : indent <= keyIndent) decline();
      const node = entry ? [] : {};
      map[key] = node;
      if (entry && map === this.#root && key === 'websites') this.#websites = node as unknown[];
      this.#stack.push({ indent, node });
    } else {
      this.#closeTo(indent, entry);
    }
    const top = this.#stack[this.#stack.length - 1]!.node;
    if (Array.isArray(top)) this.#entry(top, indent, at, end);
    else this.#pair(top, indent, at, keyEnd(text, at, end), end);
  }

  /** Closes the collections deeper than `indent`; the line then continues the one at `indent`. */
  #closeTo(indent: number, entry: boolean): void {
    const stack = this.#stack;
    while (stack.length > 1 && stack[stack.length - 1]!.indent > indent) stack.pop();
    let top = stack[stack.length - 1]!;
    // A list written at its key's indentation ends at the next key there.
    if (!entry && Array.isArray(top.node) && top.indent === indent) {
      stack.pop();
      top = stack[stack.length - 1]!;
    }
    if (top.indent !== indent || Array.isArray(top.node) !== entry) decline();
  }

  /** `- value` or `- key: value` (a mapping whose keys are at the first key's column). */
  #entry(list: unknown[], indent: number, at: number, end: number): void {
    const text = this.#text;
    let value = at + 1;
    while (value < end && text.charCodeAt(value) === 32) value += 1;
    if (value === end || text[value] === '#') decline(); // the entry's value is on the next lines
    if (list === this.#websites) this.#starts.push(value);
    const colon = keyEnd(text, value, end);
    if (colon === -1) {
      list.push(this.#inline(value, end));
      return;
    }
    const map: YamlMap = {};
    list.push(map);
    const column = indent + (value - at);
    this.#stack.push({ indent: column, node: map });
    this.#pair(map, column, value, colon, end);
  }

  /** `key: value`, or `key:` with the value on the next lines; `colon` ends the key (-1: not a key). */
  #pair(map: YamlMap, indent: number, at: number, colon: number, end: number): void {
    const text = this.#text;
    if (colon === -1) decline();
    const key = this.#key(at, colon);
    if (Object.hasOwn(map, key)) decline();
    let value = colon + 1;
    while (value < end && text.charCodeAt(value) === 32) value += 1;
    if (value === end || text[value] === '#') this.#pending = { map, key, indent };
    else {
      const inline = this.#inline(value, end);
      // Entries written `websites: [...]` would need a position each; the parser knows them.
      if (map === this.#root && key === 'websites' && Array.isArray(inline) && inline.length > 0) decline();
      map[key] = inline;
    }
  }

  /** The key from `at` to `colon`, the same string each time it is written. */
  #key(at: number, colon: number): string {
    const text = this.#text;
    for (const known of this.#keys) if (known.length === colon - at && text.startsWith(known, at)) return known;
    const key = text.slice(at, colon);
    // A key the core schema reads as null, a boolean or a number is not its text (`null:` is the key "").
    if (key === '__proto__' || resolvePlain(key) !== key) decline();
    if (this.#keys.length < MAX_KNOWN_KEYS) this.#keys.push(key);
    return key;
  }

  /** A value written on its key's or entry's line, from `at` (not a space) to the line's `end`. */
  #inline(at: number, end: number): unknown {
    const text = this.#text;
    const first = text[at]!;
    if (first === "'" || first === '"') return this.#quoted(first, at, end);
    if (first === '[') return this.#flowList(at, end);
    if (first === '{' && text[at + 1] === '}') {
      this.#lineEnds(at + 2, end);
      return {};
    }
    // `-x` is plain text; `- x` or a lone `-` would be a list entry where a value belongs.
    if (INDICATOR.has(first) && !(first === '-' && at + 1 < end && text[at + 1] !== ' ')) decline();
    return resolvePlain(text.slice(at, plainEnd(text, at, end)));
  }

  /** 'it''s' or "text" on one line; a double-quoted escape declines. */
  #quoted(quote: string, at: number, end: number): string {
    const close = closingQuote(this.#text, quote, at, end);
    this.#lineEnds(close + 1, end);
    return quotedBody(this.#text, quote, at, close);
  }

  /** [a, 'b', "c"] on one line: plain scalars without indicators, or quoted ones. */
  #flowList(at: number, end: number): unknown[] {
    const text = this.#text;
    const items: unknown[] = [];
    let index = skipSpaces(text, at + 1, end);
    if (text[index] === ']') {
      this.#lineEnds(index + 1, end);
      return items;
    }
    for (;;) {
      index = skipSpaces(text, index, end);
      const first = text[index];
      if (first === "'" || first === '"') {
        const close = closingQuote(text, first, index, end);
        items.push(quotedBody(text, first, index, close));
        index = close + 1;
      } else {
        let stop = index;
        while (stop < end && text[stop] !== ',' && text[stop] !== ']') stop += 1;
        const plain = text.slice(index, stop).trimEnd();
        if (plain === '' || FLOW_UNSURE.test(plain)) decline();
        items.push(resolvePlain(plain));
        index = stop;
      }
      index = skipSpaces(text, index, end);
      if (text[index] === ']') break;
      if (text[index] !== ',') decline();
      index += 1;
    }
    this.#lineEnds(index + 1, end);
    return items;
  }

  /** After a quoted or flow value: only spaces and a comment. */
  #lineEnds(at: number, end: number): void {
    const text = this.#text;
    let rest = at;
    while (rest < end && text.charCodeAt(rest) === 32) rest += 1;
    if (rest < end && !(text[rest] === '#' && rest > at)) decline();
  }
}

/**
 * Where a top-level key of a file this reader read starts, and its value (on
 * the key's line, else the next line with content). Made when a problem asks,
 * reading the lines that start at column 0 only as far as the key asked for:
 * reading the file pays nothing for it, and the first unknown keys of 190,000
 * are found near the top.
 */
export function topLevelOffsets(source: string): (key: string) => { key: number; value: number } | undefined {
  const offsets = new Map<string, { key: number; value: number }>();
  let start = 0;
  let waiting: { key: number; value: number } | undefined;
  /** Reads one line from `start`; false at the end. */
  const readLine = (): boolean => {
    if (start >= source.length) return false;
    const newline = source.indexOf('\n', start);
    const next = newline === -1 ? source.length : newline + 1;
    let end = newline === -1 ? source.length : newline;
    if (end > start && source.charCodeAt(end - 1) === 13) end -= 1;
    const at = skipSpaces(source, start, end);
    if (at < end && source[at] !== '#') {
      if (waiting) waiting.value = at;
      waiting = undefined;
      const colon = at === start ? keyEnd(source, at, end) : -1;
      const name = colon === -1 ? undefined : source.slice(at, colon);
      if (name !== undefined && !offsets.has(name)) {
        const value = skipSpaces(source, colon + 1, end);
        const found = { key: at, value };
        offsets.set(name, found);
        if (value === end || source[value] === '#') waiting = found;
      }
    }
    start = next;
    return true;
  };
  return (key) => {
    while (!offsets.has(key) && readLine());
    // A value on the next lines: read on to it.
    while (waiting !== undefined && waiting === offsets.get(key) && readLine());
    return offsets.get(key);
  };
}

/** The closing quote of the quoted scalar opening at `at`, on the same line. */
function closingQuote(text: string, quote: string, at: number, end: number): number {
  let close = at;
  for (;;) {
    close = indexInLine(text, quote, close + 1, end);
    if (close === -1) decline();
    if (quote === "'" && text[close + 1] === "'") close += 1;
    else return close;
  }
}

function quotedBody(text: string, quote: string, at: number, close: number): string {
  const body = text.slice(at + 1, close);
  if (quote === '"' && body.includes('\\')) decline();
  return quote === "'" ? body.replaceAll("''", "'") : body;
}

function skipSpaces(text: string, at: number, end: number): number {
  let index = at;
  while (index < end && text.charCodeAt(index) === 32) index += 1;
  return index;
}

/** The index of the `:` ending a simple key (`[A-Za-z_][A-Za-z0-9_-]*: `) at `at`, else -1. */
function keyEnd(text: string, at: number, end: number): number {
  let index = at;
  let code = text.charCodeAt(index);
  if (!(isLetter(code) || code === 95)) return -1;
  while (index < end) {
    code = text.charCodeAt(index);
    if (!(isLetter(code) || code === 95 || code === 45 || (code >= 48 && code <= 57))) break;
    index += 1;
  }
  if (text.charCodeAt(index) !== 58) return -1;
  return index + 1 === end || text.charCodeAt(index + 1) === 32 ? index : -1;
}

const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * Where a plain scalar from `at` ends: at a comment (` #`) or the line's end,
 * trailing spaces dropped. One that holds `: ` or ends with `:` would be a
 * mapping where a value belongs: declined. One pass, as it runs per value.
 */
function plainEnd(text: string, at: number, end: number): number {
  let stop = end;
  for (let index = at + 1; index < end; index++) {
    if (text.charCodeAt(index) !== 32) continue;
    if (text.charCodeAt(index + 1) === 35) {
      stop = index;
      break;
    }
    if (text.charCodeAt(index - 1) === 58) decline();
  }
  while (stop > at && text.charCodeAt(stop - 1) === 32) stop -= 1;
  if (text.charCodeAt(stop - 1) === 58) decline();
  return stop;
}

/** `indexOf` within one line (a search over the rest of the file would make reading quadratic). */
function indexInLine(text: string, char: string, from: number, end: number): number {
  const code = char.charCodeAt(0);
  for (let index = from; index < end; index++) if (text.charCodeAt(index) === code) return index;
  return -1;
}

/** As the core schema reads a plain scalar: null, a boolean, a number, else the text. */
function resolvePlain(plain: string): unknown {
  const resolvers = RESOLVERS.get(plain.charAt(0)) ?? ANY_FIRST;
  for (const tag of resolvers) {
    const value = tag.resolve(plain, false, tag.tagName);
    if (value !== NOT_RESOLVED) return value;
  }
  // js-yaml keeps a number too large for a double (1e310) as text, yaml reads Infinity: left to the parsers.
  if (OUT_OF_RANGE.test(plain)) decline();
  return plain;
}
