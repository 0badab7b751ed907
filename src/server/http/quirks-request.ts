/**
 * Quirks mode (phpanalytics-v31): the request as Laravel 10's Request reads it. Routing matches
 * the path with every escape decoded but `//` and dot segments kept (UriValidator), while
 * `$request->path()` and the paginator's URL keep the path as sent; `expectsJson()` reads the
 * first Accept type and X-Requested-With; `input()` is the body's fields, then the query's; a
 * POST may name another method (`_method`, X-HTTP-Method-Override), as Symfony lets it.
 */
import type { FastifyRequest } from 'fastify';
import { originForm } from './request-path.js';

/** Bytes a URL path may hold as they are; every other byte is escaped again after decoding. */
const PATH_BYTE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

function splitTarget(target: string): { path: string; query: string } {
  const url = originForm(target);
  const at = url.search(/[?#]/);
  return at === -1 ? { path: url, query: '' } : { path: url.slice(0, at), query: url.slice(at).replace(/#.*$/, '') };
}

/** rawurldecode: `%XX` is a byte, whatever it encodes (`%2F` a slash too). */
function rawUrlDecode(path: string): Buffer {
  const bytes = Buffer.from(path, 'latin1');
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  for (let index = 0; index < bytes.length; index += 1) {
    const hex = bytes[index] === 0x25 ? path.slice(index + 1, index + 3) : '';
    if (/^[\da-f]{2}$/i.test(hex)) {
      out[length++] = Number.parseInt(hex, 16);
      index += 2;
    } else {
      out[length++] = bytes[index]!;
    }
  }
  return out.subarray(0, length);
}

/**
 * The URL fastify routes on: the path decoded as UriValidator matches it (`rawurldecode`, trailing
 * slashes dropped), its bytes escaped again only where a URL needs it (`%`, `?`, `#`, spaces,
 * non-ASCII), so the router decodes each back once. `//` and `..` stay: they match no route.
 */
export function laravelRoutingUrl(target: string): string {
  const { path, query } = splitTarget(target);
  if (!path.startsWith('/')) return target;
  let routed = '';
  for (const byte of rawUrlDecode(path)) {
    const character = String.fromCharCode(byte);
    routed += PATH_BYTE.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `${routed.replace(/\/+$/, '') || '/'}${query}`;
}

/** The path as the client sent it (absolute form aside), escapes kept. */
export function rawPath(request: FastifyRequest): string {
  return splitTarget(request.originalUrl).path;
}

/** `$request->path()`: the path as sent, without its slashes at both ends; '/' when nothing is left. */
export function laravelPath(request: FastifyRequest): string {
  return rawPath(request).replace(/^\/+|\/+$/g, '') || '/';
}

/** The Accept header's types, by quality (highest first, ties in their order), as Symfony's AcceptHeader sorts them. */
function acceptableTypes(accept: string): string[] {
  return accept
    .split(',')
    .map((item, index) => {
      const [type = '', ...parameters] = item.split(';').map((part) => part.trim());
      const q = parameters.find((parameter) => /^q=/i.test(parameter));
      return { type: type.toLowerCase(), quality: q === undefined ? 1 : Number(q.slice(2)) || 0, index };
    })
    .filter((item) => item.type !== '')
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((item) => item.type);
}

/** `$request->expectsJson()`: an XMLHttpRequest (not PJAX) that accepts anything, or JSON as the first Accept type. */
export function expectsJson(request: FastifyRequest): boolean {
  const [first] = acceptableTypes(request.headers.accept ?? '');
  const wantsJson = first !== undefined && (first.includes('/json') || first.includes('+json'));
  const ajax = request.headers['x-requested-with'] === 'XMLHttpRequest' && !request.headers['x-pjax'];
  return wantsJson || (ajax && (first === undefined || first === '*/*' || first === '*'));
}

const asFields = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** `$request->input()` on a write: the body's fields, then the query's that the body lacks (PHP's `+`). */
export function laravelInput(request: FastifyRequest): Record<string, unknown> {
  return { ...asFields(request.query), ...asFields(request.body) };
}

/**
 * Symfony's `getMethod()` with the method override Laravel enables: a POST may name another
 * method in an `X-HTTP-Method-Override` header, else `_method` in its body, else in its query.
 * A name that is not letters leaves the request a POST.
 */
export function effectiveMethod(request: FastifyRequest): string {
  if (request.method !== 'POST') return request.method;
  const header = request.headers['x-http-method-override'];
  const body = asFields(request.body);
  const named = header ? header : Object.hasOwn(body, '_method') ? body._method : asFields(request.query)._method;
  const method = typeof named === 'string' ? named.toUpperCase() : '';
  return /^[A-Z]+$/.test(method) ? method : 'POST';
}

/** A Host header Symfony takes (letters, digits, `-`, `_`, dots, or an IPv6 literal; a port). */
const HOST = /^(?:\[[\da-f:.]+\]|[a-z\d_.-]+)(?::\d{1,5})?$/i;

/** Where links point from: the operator's `--public-url` (pinned) when given, else the request's own URL. */
export interface LinkBase {
  pinned?: string;
  /** The listening address: for a Host no URL can be built from. */
  listening: () => string;
}

/**
 * `$request->root()`, the base of the URLs Laravel builds (page links, the login redirect): the
 * scheme and Host the request came with. A pinned `--public-url` wins; a Host no URL can be built
 * from falls back to the listening address.
 */
export function laravelRoot(request: FastifyRequest, base: LinkBase): string {
  if (base.pinned !== undefined) return base.pinned;
  const scheme = request.protocol;
  // Symfony's getSchemeAndHttpHost(): the scheme's own port is left out.
  const host = request.host.toLowerCase().replace(scheme === 'https' ? /:443$/ : /:80$/, '');
  return HOST.test(host) ? `${scheme}://${host}` : base.listening();
}

/** `$request->url()`, the paginator's path: the root and the path as sent. */
export function laravelUrl(request: FastifyRequest, base: LinkBase): string {
  return `${laravelRoot(request, base)}${rawPath(request).replace(/\/+$/, '')}`;
}
