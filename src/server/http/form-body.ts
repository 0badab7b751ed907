/**
 * Request bodies: forms in the charset they declare, JSON in UTF-8. A form's
 * percent-escapes are bytes of its charset (`é` is `%E9` in latin1), so the
 * body is split and unescaped to bytes first, then decoded with the declared
 * charset (any WHATWG label: latin1, windows-1252, utf-16le…; default UTF-8).
 * An unknown charset is 415; bytes invalid in the charset are 400: a value is
 * never stored mangled. Repeated fields become arrays (refused by validation).
 */
import { TextDecoder } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './http-error.js';
import type { ServerMode } from './mode.js';

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

/** `+` is a space; `%XX` is a byte; everything else is the charset's own bytes (ASCII in practice). */
function unescapeToBytes(text: string): Buffer {
  const withSpaces = text.replace(/\+/g, ' ');
  const bytes: number[] = [];
  for (let index = 0; index < withSpaces.length; index += 1) {
    const hex = withSpaces[index] === '%' ? withSpaces.slice(index + 1, index + 3) : '';
    if (/^[\da-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(withSpaces[index]!, 'latin1'));
    }
  }
  return Buffer.from(bytes);
}

export function parseForm(raw: Buffer, charset: string): Record<string, unknown> {
  const decoder = decoderFor(charset);
  const decode = (part: string) => {
    try {
      return decoder(unescapeToBytes(part));
    } catch {
      throw malformed('form');
    }
  };
  // The escaped body is ASCII whatever the charset; a byte outside it is read as its own value.
  const form: Record<string, unknown> = Object.create(null);
  for (const pair of raw.toString('latin1').split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decode(at === -1 ? pair : pair.slice(0, at));
    const value = at === -1 ? '' : decode(pair.slice(at + 1));
    const previous = form[name];
    if (previous === undefined) form[name] = value;
    else form[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return form;
}

export function registerBodyParsers(app: FastifyInstance, mode: ServerMode = 'normal'): void {
  // Only forms and JSON are bodies here; fastify's built-in text/plain parser would hand the
  // routes a string, answered 422 "required", where every other content type gets 415.
  app.removeContentTypeParser('text/plain');
  // The real service reads a text/plain body as no fields at all (422 on domain), not 415.
  if (mode === 'phpanalytics-v31') app.addContentTypeParser('text/plain', (_request, _payload, done) => done(null, {}));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      done(null, parseForm(raw as Buffer, charsetOf(request)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // JSON is UTF-8 (RFC 8259); an empty JSON body (e.g. on DELETE) is an empty form, not an error.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    if (!['utf-8', 'utf8'].includes(charsetOf(request))) return done(unsupportedMedia(), undefined);
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
