/**
 * Quirks mode (phpanalytics-v31): bodies as PHP and Laravel read them. PHP ignores a declared
 * charset and hands on the bytes; MariaDB then stores each byte that is not UTF-8 as `?`. A JSON
 * body json_decode cannot read (malformed, not UTF-8), and a body of any other type or of none
 * (XML, text/plain, multipart, no Content-Type), reads as no fields. In a form, `name[]=…` makes
 * an array (a `domain[]` answers 500, validation.ts) and a repeated name keeps its last value.
 * Bounds stay those of normal mode (body size, fields): nothing here does unbounded work.
 */
import { TextDecoder } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { parseForm } from './form-body.js';

/** Large enough for a 65,535-byte column value sent percent-encoded; the deployed service's PHP takes 8 MB. */
export const QUIRKS_BODY_LIMIT = 256 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Bytes a UTF-8 sequence starting with this byte takes; 0 for a byte no sequence starts with. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** UTF-8 text, each byte that is not part of a valid sequence read as `?` (as MariaDB stores it). */
export function utf8WithQuestionMarks(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    let text = '';
    let index = 0;
    while (index < bytes.length) {
      const length = sequenceLength(bytes[index]!);
      const sequence = length === 0 ? undefined : bytes.subarray(index, index + length);
      let character = '?';
      try {
        if (sequence && sequence.length === length) character = utf8.decode(sequence);
      } catch {
        // Not a valid sequence: this byte is a `?`.
      }
      text += character;
      index += character === '?' ? 1 : length;
    }
    return text;
  }
}

/** PHP's reading of form names: `name[…]` appends to an array `name`; a repeated name keeps its last value. */
function phpFields(form: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(form)) {
    const bracket = name.indexOf('[');
    const values = Array.isArray(value) ? value : [value];
    if (bracket > 0) {
      const base = name.slice(0, bracket);
      const previous = fields[base];
      fields[base] = [...(Array.isArray(previous) ? previous : []), ...values];
    } else {
      fields[name] = values[values.length - 1];
    }
  }
  return fields;
}

/** json_decode's reading: an object or array when the text is UTF-8 JSON, else no fields. */
function lenientJson(raw: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    return {};
  }
}

export function registerQuirksBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, raw, done) => {
    try {
      done(null, phpFields(parseForm(raw as Buffer, utf8WithQuestionMarks)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, raw, done) =>
    done(null, lenientJson(raw as Buffer)),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _raw, done) => done(null, {}));
}
