/**
 * Quirks mode (phpanalytics-v31): bodies as PHP and Laravel read them. PHP ignores a declared
 * charset and hands on the bytes; MariaDB then stores each byte that is not UTF-8 as `?`. A JSON
 * body json_decode cannot read (malformed, not UTF-8), and a body of any other type or of none
 * (XML, text/plain, no Content-Type), reads as no fields; multipart/form-data is read as PHP
 * fills `$_POST` (its file parts left out). In a form, `name[]=…` makes an array (a `domain[]`
 * answers 500, validation.ts) and a repeated name keeps its last value; the query string is read
 * the same way. Bounds stay those of normal mode (body size, fields): nothing here does unbounded work.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { addField, MAX_FIELDS, parseForm, parseJson, tooManyFields } from './form-body.js';
import { HttpError } from './http-error.js';

/**
 * Large enough for a value over the 65,535-byte columns (70 KB, as played against the deployed
 * service); the deployed PHP takes 8 MB, which no test needs and which would only cost parsing.
 */
export const QUIRKS_BODY_LIMIT = 128 * 1024;

/** Bytes a UTF-8 sequence starting with this byte takes; 0 for a byte no sequence starts with. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** Whether the sequence at `index` is whole and valid (no overlong form, no surrogate, at most U+10FFFF). */
function isWholeSequence(bytes: Buffer, index: number, length: number): boolean {
  for (let next = 1; next < length; next += 1) if (((bytes[index + next] ?? 0) & 0xc0) !== 0x80) return false;
  const [lead, second] = [bytes[index]!, bytes[index + 1] ?? 0];
  if (lead === 0xe0) return second >= 0xa0;
  if (lead === 0xed) return second <= 0x9f;
  if (lead === 0xf0) return second >= 0x90;
  if (lead === 0xf4) return second <= 0x8f;
  return true;
}

/** UTF-8 text, each byte that is not part of a valid sequence read as `?` (as MariaDB stores it). One pass. */
export function utf8WithQuestionMarks(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const out = Buffer.allocUnsafe(bytes.length);
  let index = 0;
  while (index < bytes.length) {
    const length = sequenceLength(bytes[index]!);
    if (length > 0 && isWholeSequence(bytes, index, length)) {
      bytes.copy(out, index, index, index + length);
      index += length;
    } else {
      out[index] = 0x3f;
      index += 1;
    }
  }
  return out.toString('utf8');
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
      if (Array.isArray(previous)) previous.push(...values);
      else fields[base] = [...values];
    } else {
      fields[name] = values[values.length - 1];
    }
  }
  return fields;
}

/** The query string as PHP reads it; what is past MAX_FIELDS is dropped (PHP's max_input_vars), never an error. */
export function phpQuery(query: string): Record<string, unknown> {
  const fields = query
    .split('&', MAX_FIELDS * 2)
    .filter((part) => part !== '')
    .slice(0, MAX_FIELDS);
  return phpFields(parseForm(Buffer.from(fields.join('&'), 'latin1'), utf8WithQuestionMarks));
}

const CRLF = Buffer.from('\r\n');

/**
 * multipart/form-data as PHP fills `$_POST`: every part with a name and no filename is a field
 * (its value the part's bytes, read as UTF-8 with `?` for what is not); file parts and a part
 * cut off before its boundary are left out. One pass over the body.
 */
function multipartFields(raw: Buffer, contentType: string): Record<string, unknown> {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const form: Record<string, unknown> = Object.create(null);
  if (!boundary) return form;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let fields = 0;
  let at = raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    const next = raw.indexOf(delimiter, start);
    if (next === -1) break;
    const part = raw.subarray(start, next);
    const headersEnd = part.indexOf('\r\n\r\n');
    const disposition = headersEnd === -1 ? '' : part.subarray(0, headersEnd).toString('latin1');
    const name = /content-disposition:\s*form-data\s*;[^\r\n]*?\bname=(?:"([^"]*)"|([^;\s]+))/i.exec(disposition);
    if (name && !/\bfilename\*?=/i.test(disposition)) {
      fields += 1;
      if (fields > MAX_FIELDS) throw tooManyFields();
      let value = part.subarray(headersEnd + 4);
      if (value.subarray(-2).equals(CRLF)) value = value.subarray(0, -2);
      addField(form, utf8WithQuestionMarks(Buffer.from(name[1] ?? name[2]!, 'latin1')), utf8WithQuestionMarks(value));
    }
    at = next;
  }
  return phpFields(form);
}

/** json_decode's reading: an object or array when the text is UTF-8 JSON, else no fields. */
function lenientJson(raw: Buffer): unknown {
  try {
    // The contract's parser, for its bounds (depth, fields); what it cannot read is no fields here.
    return parseJson(raw);
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 413) throw error;
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
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      done(null, multipartFields(raw as Buffer, request.headers['content-type'] ?? ''));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _raw, done) => done(null, {}));
}
