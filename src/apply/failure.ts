/**
 * Turns an error from a change into the one-line reason of its result. User
 * errors keep the client's message (it names the request and the field, and
 * says that a taken domain may belong to another account); an update of a site
 * that vanished says so in the user's terms; a 500 on a request carrying a
 * large list names the field that is likely too long.
 */
import { type ErrorCode, isSitesyncError } from '../model/errors.js';
import type { Action } from '../model/plan.js';
import { FIELDS, largeFields, MAX_FIELD_BYTES, type WebsiteSettings } from '../model/website.js';

/** A list this long may not fit the service's column once encoded (or on a server with a smaller one). */
const LARGE_FIELD_BYTES = 16_384;

export interface Failure {
  reason: string;
  code?: ErrorCode;
}

/** `sent`: the settings the failed request carried, to name a likely too long field on a 500. */
export function describeFailure(action: Action, error: unknown, sent: Partial<WebsiteSettings> = {}): Failure {
  if (!isSitesyncError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { reason: `internal error (please report): ${message}` };
  }
  if (action === 'update' && error.code === 'not_found') {
    return { reason: 'the site was deleted since the plan was made (out of band)', code: error.code };
  }
  const [large] = error.code === 'server' ? largeFields(sent, LARGE_FIELD_BYTES) : [];
  if (large) {
    const size = `${large.bytes.toLocaleString('en-US')} bytes`;
    const limit = `${MAX_FIELD_BYTES.toLocaleString('en-US')} bytes`;
    const hint = `${FIELDS[large.name].configName} is likely too long (${size} sent; the service's columns hold ${limit})`;
    return { reason: `${error.message}; ${hint}`, code: error.code };
  }
  return { reason: error.message, code: error.code };
}
