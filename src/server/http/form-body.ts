/**
 * Request bodies: forms in the charset they declare, JSON in UTF-8. A form's
 * percent-escapes are bytes of its charset (`é` is `%E9` in latin1), so the
 * body is split and unescaped to bytes first, then decoded with the declared
 * charset (any WHATWG label: latin1, windows-1252, utf-16le…; default UTF-8).
 * An unknown charset is 415; bytes invalid in the charset are 400: a value is
 * never stored mangled. Repeated fields become arrays (refused by validation).
 * Parsing is one pass over the bytes, bounded in fields and JSON depth as well
 * as bytes (fastify's bodyLimit): no body holds the event loop (docs/server.md "Limits").
 */
import { TextDecoder } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';

const unsupportedMedia = () => new HttpError(415, { message: 'Unsupported Media Type.', status: 415 });
const malformed = (what: string) => new HttpError(400, { message: `Malformed ${what} body.`, status: 400 });

function charsetOf(request: FastifyRequest): string {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(request.headers['content-type'] ?? '');
  return match ? match[1]!.toLowerCase() : 'utf-8';
}

/**
 * Bytes 0x80-0x9F in windows-1252, which the WHATWG labels latin1, iso-8859-1 and windows-1252 all
 * mean; node's TextDecoder reads them as C1 controls instead (`%80` would become U+0080, not €).
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decoderFor(charset: string): (bytes: Buffer) => string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    throw unsupportedMedia();
  }
  if (decoder.encoding !== 'windows-1252') return (bytes) => decoder.decode(bytes);
  return (bytes) =>
    decoder.decode(bytes).replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]!));
}

/** Fields in one body, counting each repetition (a website has ten); more → 413. */
export const MAX_FIELDS = 100;
/** Nesting of arrays and objects in a JSON body (a website is one flat object); deeper → 400. */
export const MAX_JSON_DEPTH = 32;

export const tooManyFields = () =>
  new HttpError(413, { message: `Too many fields (at most ${MAX_FIELDS}).`, status: 413 });
const tooDeep = () =>
  new HttpError(400, { message: `JSON nested too deeply (at most ${MAX_JSON_DEPTH} levels).`, status: 400 });

const PLUS = 0x2b;
const PERCENT = 0x25;

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** `+` is a space; `%XX` is a byte; every other byte is the charset's own (ASCII in practice). One pass. */
function unescapeToBytes(part: Buffer): Buffer {
  const out = Buffer.allocUnsafe(part.length);
  let length = 0;
  for (let index = 0; index < part.length; index += 1) {
    const byte = part[index]!;
    const high = byte === PERCENT ? hexValue(part[index + 1]) : -1;
    const low = high === -1 ? -1 : hexValue(part[index + 2]);
    if (low !== -1) {
      out[length++] = high * 16 + low;
      index += 2;
    } else {
      out[length++] = byte === PLUS ? 0x20 : byte;
    }
  }
  return out.subarray(0, length);
}

/** The `&`-separated parts of a body, at most MAX_FIELDS of them (empty parts skipped). */
function fieldsOf(raw: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  while (start <= raw.length) {
    const at = raw.indexOf(0x26, start);
    const end = at === -1 ? raw.length : at;
    if (end > start) {
      if (parts.length === MAX_FIELDS) throw tooManyFields();
      parts.push(raw.subarray(start, end));
    }
    start = end + 1;
  }
  return parts;
}

/** Linear in the body's bytes: each byte is looked at a bounded number of times. */
/** `charset` names the body's charset, or is the decoder itself (quirks mode reads bytes its own way). */
export function parseForm(raw: Buffer, charset: string | ((bytes: Buffer) => string)): Record<string, unknown> {
  const decoder = typeof charset === 'string' ? decoderFor(charset) : charset;
  const decode = (part: Buffer) => {
    try {
      return decoder(unescapeToBytes(part));
    } catch {
      throw malformed('form');
    }
  };
  const form: Record<string, unknown> = Object.create(null);
  for (const pair of fieldsOf(raw)) {
    const at = pair.indexOf(0x3d);
    const name = decode(at === -1 ? pair : pair.subarray(0, at));
    const value = at === -1 ? '' : decode(pair.subarray(at + 1));
    addField(form, name, value);
  }
  return form;
}

/** One field into a form: a repeated name becomes an array of its values, in order. */
export function addField(form: Record<string, unknown>, name: string, value: string): void {
  const previous = form[name];
  if (previous === undefined) form[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else form[name] = [previous, value];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Refuses a JSON text nested deeper than MAX_JSON_DEPTH, before parsing it: one pass, strings skipped. */
function checkJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) throw tooDeep();
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
}

/** A JSON body: strict UTF-8 (bytes invalid in it are 400, never stored mangled), bounded depth and fields. */
export function parseJson(raw: Buffer): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(raw);
  } catch {
    throw malformed('JSON');
  }
  if (text === '') return {};
  checkJsonDepth(text);
  const value: unknown = JSON.parse(text);
  if (value !== null && typeof value === 'object' && Object.keys(value).length > MAX_FIELDS) throw tooManyFields();
  return value;
}

/** The contract's bodies (quirks mode has its own: quirks-body.ts). */
export function registerBodyParsers(app: FastifyInstance): void {
  // Only forms and JSON are bodies here; fastify's built-in text/plain parser would hand the
  // routes a string, answered 422 "required", where every other content type gets 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      done(null, parseForm(raw as Buffer, charsetOf(request)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // JSON is UTF-8 (RFC 8259); an empty JSON body (e.g. on DELETE) is an empty form, not an error.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    if (!['utf-8', 'utf8'].includes(charsetOf(request))) return done(unsupportedMedia(), undefined);
    try {
      done(null, parseJson(raw as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
