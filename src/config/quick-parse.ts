/**
 * The fast way to read a configuration file: js-yaml's event parser straight
 * to plain data, without the `yaml` package's syntax tree and Document, which
 * for 10,000 entries cost several times the time and memory. Only plain files
 * take this way: one document, no directives, anchors, aliases or tags, no
 * lone CR line ends. Anything else, and any problem found later, goes the
 * full way (yaml-file.ts), which finds and places every message.
 *
 * A valid file still needs one position per website (DesiredWebsite.source):
 * the start of each `websites` entry, kept from the parser's events. Any other
 * position is taken from a full parse, made only if something asks.
 */
import { constructFromEvents, EVENT_ID, type Event, getScalarValue, parseEvents, SCALAR_STYLE } from 'js-yaml';
import { LineCounter, parseDocument } from 'yaml';
import { readPlainYamlSteps, topLevelOffsets } from './plain-yaml.js';
import type { SourceFile } from './positions.js';
import { runSteps } from './steps.js';
import { PARSE_OPTIONS } from './yaml-file.js';

export interface QuickFile {
  source: SourceFile;
  data: Record<string, unknown>;
}

export function quickParse(text: string, display: string): QuickFile | undefined {
  return runSteps(quickParseSteps(text, display));
}

/** The same, pausing (`yield`) while the plain reader reads (js-yaml's parse is one step). */
export function* quickParseSteps(text: string, display: string): Generator<void, QuickFile | undefined> {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (/\r(?!\n)/.test(source)) return undefined;
  const plain = yield* readPlainYamlSteps(source);
  if (plain) {
    const known = { websiteStarts: plain.websiteStarts, topLevel: topLevelOffsets(source) };
    return { source: quickSource(source, display, known), data: plain.data };
  }
  let events: Event[];
  let documents: unknown[];
  try {
    events = parseEvents(source, {});
    // Duplicate keys throw (json: false), and so does any alias (maxAliases: 0).
    documents = constructFromEvents(events, { source, maxAliases: 0 });
  } catch {
    return undefined;
  }
  const data = documents[0];
  if (documents.length !== 1 || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const known = knownOffsets(events, source);
  if (known === undefined) return undefined;
  return { source: quickSource(source, display, known), data: data as Record<string, unknown> };
}

/** Positions known from the first read: each `websites` entry, each top-level key and its value. */
interface KnownOffsets {
  websiteStarts: readonly number[];
  topLevel: (key: string) => { key: number; value?: number } | undefined;
}

/**
 * Offsets of the entries of the top-level `websites` list and of the top-level
 * keys; undefined when any node has an anchor or a tag, or a directive
 * (`%YAML 1.1`) changes how to read.
 */
function knownOffsets(events: readonly Event[], source: string): KnownOffsets | undefined {
  for (const event of events) {
    if (event.type === EVENT_ID.DOCUMENT && event.directives.length > 0) return undefined;
    if ('anchorStart' in event && event.anchorStart !== -1) return undefined;
    if ('tagStart' in event && event.tagStart !== -1) return undefined;
  }
  const starts: number[] = [];
  const topLevel = new Map<string, { key: number; value?: number }>();
  // events: DOCUMENT, the top MAPPING, then key and value nodes in turn, then POP.
  let i = 2;
  while (i < events.length && events[i]!.type !== EVENT_ID.POP) {
    const key = events[i]!;
    i = skipNode(events, i);
    const name = key.type === EVENT_ID.SCALAR ? getScalarValue(source, key) : undefined;
    const value = events[i] && nodeStart(events[i]!);
    const keyStart = nodeStart(key);
    if (name !== undefined && keyStart !== undefined)
      topLevel.set(name, { key: keyStart, ...(value !== undefined && { value }) });
    const isWebsites = name === 'websites';
    if (isWebsites && events[i]?.type === EVENT_ID.SEQUENCE) {
      i += 1;
      while (i < events.length && events[i]!.type !== EVENT_ID.POP) {
        starts.push(startOf(events[i]!));
        i = skipNode(events, i);
      }
    }
    i = skipNode(events, i);
  }
  return { websiteStarts: starts, topLevel: (name) => topLevel.get(name) };
}

/**
 * Where a node starts as the full parse places it (a quoted scalar at its
 * quote); undefined where the events do not say (an empty value, a block
 * scalar): the full parse is asked then.
 */
function nodeStart(event: Event): number | undefined {
  if (event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE) return event.start;
  if (event.type !== EVENT_ID.SCALAR || event.valueStart === event.valueEnd) return undefined;
  if (event.style === SCALAR_STYLE.PLAIN) return event.valueStart;
  const quoted = event.style === SCALAR_STYLE.SINGLE_QUOTED || event.style === SCALAR_STYLE.DOUBLE_QUOTED;
  return quoted ? event.valueStart - 1 : undefined;
}

function startOf(event: Event): number {
  if (event.type === EVENT_ID.SCALAR) return event.valueStart;
  return event.type === EVENT_ID.MAPPING || event.type === EVENT_ID.SEQUENCE ? event.start : 0;
}

/** The index just after the node that starts at `i` (a scalar, or a collection up to its POP). */
function skipNode(events: readonly Event[], i: number): number {
  let depth = 0;
  do {
    const type = events[i]?.type;
    if (type === EVENT_ID.MAPPING || type === EVENT_ID.SEQUENCE) depth += 1;
    else if (type === EVENT_ID.POP) depth -= 1;
    i += 1;
  } while (depth > 0 && i < events.length);
  return i;
}

/** A source whose `websites[i]` positions are known; the Document is parsed only if another position is asked for. */
function quickSource(text: string, display: string, known: KnownOffsets): SourceFile {
  let full: { doc: SourceFile['doc']; lineCounter: LineCounter } | undefined;
  const parseFully = () => {
    if (!full) {
      const lineCounter = new LineCounter();
      full = { doc: parseDocument(text, { ...PARSE_OPTIONS, lineCounter }), lineCounter };
    }
    return full;
  };
  let lineStarts: number[] | undefined;
  return {
    display,
    get doc() {
      return parseFully().doc;
    },
    get lineCounter() {
      return parseFully().lineCounter;
    },
    quick: {
      websiteStart: (index) => known.websiteStarts[index],
      topLevel: (key, at) => known.topLevel(key)?.[at],
      linePos: (offset) => {
        lineStarts ??= lineStartsOf(text);
        return linePos(lineStarts, offset);
      },
    },
  };
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** As yaml's LineCounter.linePos: 1-based line and column. */
function linePos(lineStarts: readonly number[], offset: number): { line: number; col: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, col: offset - lineStarts[low]! + 1 };
}
