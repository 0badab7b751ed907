/**
 * The service's error answers, as values routes can throw. Bodies are exactly
 * those of service-notes.md; nothing internal (stack, SQL, path) ever leaks.
 */

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown> | string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${statusCode}`);
    this.name = 'HttpError';
  }
}

export const unauthenticated = () =>
  new HttpError(401, { message: 'Unauthenticated.' }, { 'www-authenticate': 'Bearer' });
export const tooManyAttempts = (retryAfter: number) =>
  new HttpError(429, { message: 'Too Many Attempts.' }, { 'retry-after': String(retryAfter) });
/** The database or the shared throttle cannot answer for now (a locked file, a timeout, a write uncounted): retry. */
export const serviceUnavailable = () =>
  new HttpError(503, { message: 'Service Unavailable.', status: 503 }, { 'retry-after': '1' });
/** The database is full: space must be freed first, so clients come back later than for a lock. */
export const storageFull = () =>
  new HttpError(503, { message: 'Service Unavailable.', status: 503 }, { 'retry-after': '30' });
export const forbidden = () => new HttpError(403, { message: "You don't have access to this feature.", status: 403 });
export const notFound = () => new HttpError(404, { message: 'Resource not found.', status: 404 });
export const serverError = () => new HttpError(500, { message: 'Server Error' });
export const invalid = (errors: Record<string, string[]>) => new HttpError(422, { message: errors, status: 422 });
