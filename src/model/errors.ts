/**
 * One error base with stable codes. Programs branch on `code`; people read
 * `message`, which names the thing and the place. Never match on message text.
 */

export type ErrorCode =
  | 'usage' // bad command line
  | 'config' // websites.yaml is invalid
  | 'auth' // 401, or a redirect / HTML login page
  | 'forbidden' // 403: no API access
  | 'not_found' // 404
  | 'validation' // 422
  | 'rate_limited' // 429 after retries
  | 'server' // 5xx
  | 'network' // connection refused, reset, timeout
  | 'protocol' // the answer is not what the API promises
  | 'stale_plan' // a saved plan no longer matches the live state
  | 'unsafe_plan' // the plan violates a safety limit
  | 'cancelled' // the user did not confirm (apply's prompt)
  | 'interrupted'; // the user stopped the run

export class SitesyncError extends Error {
  readonly code: ErrorCode;
  /** Extra structured detail (field messages, positions); never secrets. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SitesyncError';
    this.code = code;
    this.details = details;
  }
}

export function isSitesyncError(error: unknown): error is SitesyncError {
  return error instanceof SitesyncError;
}
