/**
 * Turns an error from a change into the one-line reason of its result. User
 * errors keep the client's message (it names the request and the field, and
 * says that a taken domain may belong to another account); an update of a site
 * that vanished says so in the user's terms.
 */
import { type ErrorCode, isSitesyncError } from '../model/errors.js';
import type { Action } from '../model/plan.js';

export interface Failure {
  reason: string;
  code?: ErrorCode;
}

export function describeFailure(action: Action, error: unknown): Failure {
  if (!isSitesyncError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { reason: `internal error (please report): ${message}` };
  }
  if (action === 'update' && error.code === 'not_found') {
    return { reason: 'the site was deleted since the plan was made (out of band)', code: error.code };
  }
  return { reason: error.message, code: error.code };
}
