/**
 * One spelling per path, before routing: authentication must not depend on how
 * a client spells the path. The request target is reduced to its origin form
 * (absolute-form loses scheme and authority), percent-encoded unreserved
 * characters are decoded (`%61` → `a`, RFC 3986 §6.2.2.2), dot segments are
 * removed, and empty segments (double and trailing slashes) are dropped.
 * `%2F` stays encoded: it is data, not a separator. The query is untouched.
 */

const ABSOLUTE_FORM = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i;
const UNRESERVED = /^[A-Za-z\d\-._~]$/;

function decodeUnreserved(segment: string): string {
  return segment.replace(/%([\da-f]{2})/gi, (encoded, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : encoded.toUpperCase();
  });
}

/** The origin form of a request target: an absolute-form target (`http://host/path`) loses its scheme and host. */
export function originForm(target: string): string {
  const absolute = ABSOLUTE_FORM.exec(target);
  if (!absolute) return target;
  const url = target.slice(absolute[0].length);
  return url.startsWith('/') ? url : `/${url}`;
}

export function canonicalUrl(target: string): string {
  const url = originForm(target);
  if (!url.startsWith('/')) return target; // `*` or garbage: routing answers 404
  const queryAt = url.search(/[?#]/);
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const rest = queryAt === -1 ? '' : url.slice(queryAt).replace(/#.*$/, '');
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    const segment = decodeUnreserved(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}${rest}`;
}

/** Whether a canonical path is under the API: such paths are authenticated even when no route matches. */
export function isApiPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === '/api' || path.startsWith('/api/');
}
