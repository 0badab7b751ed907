/**
 * From a path in the data (ajv's instancePath, or our own checks) back to the
 * YAML source: `file:line:column` of the value (or of the key, for unknown
 * keys), and the path in the user's terms: `websites[3].privacy`.
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import type { ConfigProblem } from '../model/desired-state.js';
import { escapeInvisible } from '../model/text.js';
import type { SourceLocation } from '../model/website.js';

export type PathSegment = string | number;
export type DataPath = readonly PathSegment[];

/** A parsed file: what positions and problems need. */
export interface SourceFile {
  display: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  /** Positions known without the Document (a file read the fast way: quick-parse.ts). */
  quick?: QuickPositions;
  /** The text as parsed (BOM removed): what a position inside a scalar is counted in. */
  text?: string;
}

export interface QuickPositions {
  /** Offset of `websites[index]`. */
  websiteStart(index: number): number | undefined;
  /** Offset of a top-level key, or of its value. */
  topLevel(key: string, at: 'key' | 'value'): number | undefined;
  linePos(offset: number): { line: number; col: number };
}

/** `/websites/3/privacy` → ['websites', 3, 'privacy'] */
export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** ['websites', 3, 'privacy'] → `websites[3].privacy` */
export function formatPath(path: DataPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (!PLAIN_KEY.test(segment)) out += `[${quotedExcerpt(segment)}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** A key shown as it is: a field name, an `x-` key. Anything else is quoted as an excerpt. */
const PLAIN_KEY = /^[A-Za-z0-9_-]{1,40}$/;
/** How much of another key a message quotes (issue 33: a file's whole line, a password hash, was quoted). */
const KEY_EXCERPT_CHARS = 24;

/** `"root:$6$salt…"`: the first KEY_EXCERPT_CHARS characters, quoted, every invisible or control character escaped. */
function quotedExcerpt(text: string): string {
  const chars = [...text];
  const shown = chars.length > KEY_EXCERPT_CHARS ? `${chars.slice(0, KEY_EXCERPT_CHARS).join('')}…` : text;
  return escapeInvisible(JSON.stringify(shown), 'json');
}

function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

/**
 * Each mapping's pairs by key text (the first of a repeated key), built on the
 * first lookup: a file with 30,000 unknown keys gets 30,000 problems, and a
 * scan of the mapping per problem made positions quadratic (issue 23 item 13).
 */
const pairIndexes = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = pairIndexes.get(map);
  if (!index) {
    index = new Map();
    for (const item of map.items) {
      const text = keyText(item);
      if (text !== undefined && !index.has(text)) index.set(text, item);
    }
    pairIndexes.set(map, index);
  }
  return index.get(key);
}

function start(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}

/**
 * Offset of the node at `path`: the value, or with `at: 'key'` the key of the
 * last segment. Follows aliases; when the path leaves the source (a key that
 * came from a merge, a missing value) it stops at the deepest node it found.
 */
export function offsetOf(source: SourceFile, path: DataPath, at: 'key' | 'value' = 'value'): number {
  if (source.quick && at === 'value' && path.length === 2 && path[0] === 'websites' && typeof path[1] === 'number') {
    const offset = source.quick.websiteStart(path[1]);
    if (offset !== undefined) return offset;
  }
  if (source.quick && path.length === 1) {
    const offset = source.quick.topLevel(String(path[0]), at);
    if (offset !== undefined) return offset;
  }
  let node: unknown = source.doc.contents;
  let offset = start(node) ?? 0;
  for (const [i, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(source.doc);
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = pairOf(node, String(segment));
      if (!pair) break;
      if (last && at === 'key') return start(pair.key) ?? offset;
      offset = start(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      break;
    }
    offset = start(node) ?? offset;
  }
  return offset;
}

export function locationAt(source: SourceFile, offset: number): SourceLocation {
  const { line, col } = (source.quick ?? source.lineCounter).linePos(offset);
  return { file: source.display, line, column: col };
}

export function locate(source: SourceFile, path: DataPath, at: 'key' | 'value' = 'value'): SourceLocation {
  return locationAt(source, offsetOf(source, path, at));
}

/** Start and end offsets of the value node at `path`, when the path is in the document. */
export function rangeOf(source: SourceFile, path: DataPath): [number, number] | undefined {
  const node = source.doc.getIn(path, true) as Node | undefined;
  return node?.range ? [node.range[0], node.range[1]] : undefined;
}

/** `locate(source, ['websites', index])`, the position every site keeps, without walking a path. */
export function websiteAt(source: SourceFile, index: number): SourceLocation {
  const offset = source.quick?.websiteStart(index);
  return offset === undefined ? locate(source, ['websites', index]) : locationAt(source, offset);
}

export function problemAt(
  source: SourceFile,
  path: DataPath,
  message: string,
  options: { severity?: ConfigProblem['severity']; at?: 'key' | 'value'; code?: ConfigProblem['code'] } = {},
): ConfigProblem {
  const severity = options.severity ?? 'error';
  return {
    severity,
    code: options.code ?? (severity === 'warning' ? 'advice' : 'invalid_value'),
    path: formatPath(path),
    message,
    source: locate(source, path, options.at ?? 'value'),
  };
}

export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.column}`;
}
