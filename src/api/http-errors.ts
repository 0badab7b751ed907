/**
 * An HTTP answer that is not a success → one `SitesyncError` with a stable code
 * and a one-line message a person can act on. Decided by status code and field
 * names only: installations translate message text, so it is shown, never
 * matched. The key is never part of a message (only the origin is).
 */
import { SitesyncError } from '../model/errors.js';
import { printable } from '../model/text.js';
import type { HttpResponse } from './transport.js';
import { decodeErrorBody, looksLikeLoginPage } from './wire.js';

export interface FailureContext {
  /** `POST /api/v1/websites` */
  label: string;
  method: string;
  path: string;
  origin: string;
  attempts: number;
  /** Appended to a 422 that names the `domain` field. */
  domainNote?: string;
}

function isHtml(response: HttpResponse): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return type.includes('html') || response.text.trimStart().startsWith('<');
}

/** A success status whose body is a login page: the key did not get us in. */
export function isLoginPage(response: HttpResponse): boolean {
  return response.status >= 200 && response.status < 300 && isHtml(response) && looksLikeLoginPage(response.text);
}

const LOGIN_PATH = /\/(login|log-in|signin|sign-in|auth)\b/i;

/** The Location header as an absolute URL, control characters made visible. */
function redirectTarget(response: HttpResponse, origin: string): string | undefined {
  const raw = response.headers.location;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return undefined;
  try {
    return printable(new URL(String(value), origin).href);
  } catch {
    return printable(String(value));
  }
}

/** The path of a Location: a host named `auth.example.com` is not a login page. */
function pathOf(location: string): string {
  try {
    return new URL(location).pathname;
  } catch {
    return location;
  }
}

function summary(response: HttpResponse): string {
  if (isHtml(response)) return 'an HTML error page';
  return decodeErrorBody(response.text).message ?? 'no details';
}

function fieldMessages(fields: Record<string, string[]>): string {
  return Object.entries(fields)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join('; ');
}

export function errorForResponse(response: HttpResponse, context: FailureContext): SitesyncError {
  const { status } = response;
  const details: Record<string, unknown> = {
    status,
    method: context.method,
    path: context.path,
    attempts: context.attempts,
  };
  const fail = (code: ConstructorParameters<typeof SitesyncError>[0], message: string) =>
    new SitesyncError(code, message, details);

  if (status >= 300 && status < 400) {
    const location = redirectTarget(response, context.origin);
    if (location !== undefined && LOGIN_PATH.test(pathOf(location))) {
      return fail(
        'auth',
        `the API key was rejected by ${context.origin} (${status}: a redirect to the login page ${location})`,
      );
    }
    return fail(
      'protocol',
      `${context.label} → ${status}: the server redirects to ${location ?? '(no Location header)'}; sitesync does not follow redirects: if the service moved, set --url (or api.url) to that address`,
    );
  }
  if (isLoginPage(response)) {
    return fail('auth', `the API key was rejected by ${context.origin} (${status}: a login page)`);
  }
  switch (status) {
    case 401:
      return fail('auth', `the API key was rejected by ${context.origin} (401)`);
    case 403:
      return fail('forbidden', `${context.label} → 403: this account's plan has no API access`);
    case 404:
      return fail('not_found', `${context.label} → 404: not found`);
    case 422:
      return validationError(response, context, details);
    case 429:
      return fail(
        'rate_limited',
        `${context.label} → 429: still throttled after ${context.attempts} attempts (lower --rate-limit; the service may count every client on this IP)`,
      );
  }
  if (status >= 500) return fail('server', `${context.label} → ${status}: ${summary(response)}`);
  return fail('protocol', `${context.label} → ${status}: unexpected answer (${summary(response)})`);
}

function validationError(
  response: HttpResponse,
  context: FailureContext,
  details: Record<string, unknown>,
): SitesyncError {
  const body = decodeErrorBody(response.text);
  const fields = body.fields;
  let text =
    Object.keys(fields).length > 0 ? fieldMessages(fields) : (body.message ?? 'the service refused the values');
  if (fields.domain !== undefined && context.domainNote !== undefined) text += ` (${context.domainNote})`;
  return new SitesyncError('validation', `${context.label} → 422: ${text}`, { ...details, fields });
}
