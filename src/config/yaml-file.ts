/**
 * One YAML file → a source document with positions plus plain data, or clear
 * problems. YAML safety lives here: duplicate keys are errors, alias expansion
 * is bounded (no "billion laughs"), tabs, several documents, empty files and
 * non-mapping documents each get their own message. A BOM and CRLF line ends
 * are accepted (positions stay right).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type YAMLError } from 'yaml';
import type { ConfigProblem } from '../model/desired-state.js';
import { formatLocation, locationAt, type SourceFile } from './positions.js';

/** Each alias may expand to at most this many nodes in total; plenty for anchors of shared settings. */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedFile extends SourceFile {
  /** Plain data; present only when the file parsed without problems. */
  data?: unknown;
  problems: ConfigProblem[];
}

const YAML_MESSAGES: Readonly<Record<string, string>> = {
  TAB_AS_INDENT: 'a tab is used for indentation; YAML indentation must use spaces',
  MULTIPLE_DOCS: 'the file holds several YAML documents (---); put one configuration per file',
};

function describeKind(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'empty';
  return `a ${typeof value}`;
}

/** How every file is parsed (duplicate keys are found by our own walk, to name both places). */
export const PARSE_OPTIONS = { merge: true, uniqueKeys: false, prettyErrors: false } as const;

export function parseConfigText(text: string, display: string): ParsedFile {
  const lineCounter = new LineCounter();
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const doc = parseDocument(source, { ...PARSE_OPTIONS, lineCounter });
  const parsed: ParsedFile = { display, doc, lineCounter, problems: [], text: source };
  const add = (offset: number, message: string): void => {
    parsed.problems.push({ severity: 'error', code: 'yaml', path: '', message, source: locationAt(parsed, offset) });
  };

  for (const error of doc.errors) add(error.pos[0], syntaxMessage(error));
  for (const warning of doc.warnings) {
    // e.g. an unknown tag (`!env X`): the value is read as plain text, which is rarely what was meant.
    const message = `YAML: ${(warning.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+.*$/, '')}`;
    parsed.problems.push({
      severity: 'warning',
      code: 'yaml',
      path: '',
      message,
      source: locationAt(parsed, warning.pos[0]),
    });
  }
  for (const [offset, message] of duplicateKeys(parsed)) add(offset, message);
  if (parsed.problems.some((problem) => problem.severity === 'error')) return parsed;

  if (doc.contents === null) {
    add(0, 'the file is empty; expected a mapping with version: 1 and websites:');
    return parsed;
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    add(firstAliasOffset(parsed), aliasMessage(error));
    return parsed;
  }
  if (!isMap(doc.contents) || data === null || typeof data !== 'object' || Array.isArray(data)) {
    add(doc.contents.range[0], `the top level must be a mapping (version:, websites:, …), not ${describeKind(data)}`);
    return parsed;
  }
  parsed.data = data;
  return parsed;
}

function syntaxMessage(error: YAMLError): string {
  const known = YAML_MESSAGES[error.code];
  if (known) return known;
  const first = error.message.split('\n')[0] ?? error.message;
  return `invalid YAML: ${first.replace(/ at line \d+, column \d+.*$/, '')}`;
}

function aliasMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (text.startsWith('Excessive alias count')) {
    return `aliases expand too much (limit ${MAX_ALIAS_COUNT} per alias); this looks like a "billion laughs" document`;
  }
  if (text.startsWith('Unresolved alias')) {
    return 'an alias (*name) refers to an anchor (&name) that is not defined before it';
  }
  return `invalid YAML: ${text}`;
}

function firstAliasOffset(parsed: ParsedFile): number {
  let offset = 0;
  visit(parsed.doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

/** Every repeated key in every mapping, with the place of the first one. A plain walk: `visit` is slow on big files. */
function duplicateKeys(parsed: ParsedFile): Array<[number, string]> {
  const found: Array<[number, string]> = [];
  const walk = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) walk(item);
      return;
    }
    if (!isMap(node)) return;
    const first = new Map<string, number>();
    for (const pair of node.items) {
      walk(pair.value);
      if (!isScalar(pair.key)) continue;
      const name = String(pair.key.value);
      const offset = pair.key.range?.[0] ?? 0;
      const earlier = first.get(name);
      if (earlier === undefined) {
        if (name !== '<<') first.set(name, offset);
        continue;
      }
      found.push([offset, `duplicate key ${name} (first at ${formatLocation(locationAt(parsed, earlier))})`]);
    }
  };
  walk(parsed.doc.contents);
  return found;
}
