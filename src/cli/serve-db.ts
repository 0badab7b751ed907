/**
 * The database of `sitesync serve` and its administration commands, as the
 * command line words it: a setup problem is a usage error, and a postgres://
 * URL is shown without its password.
 */
import { SitesyncError } from '../model/errors.js';
import { ServerSetupError } from '../server/setup-error.js';

/** A server error that is the user's (short key, missing directory) → one readable line; others pass. */
export function throwIfSetupError(error: unknown): void {
  if (error instanceof ServerSetupError) throw new SitesyncError('usage', error.message);
}

/** The --db value as it may be shown: a postgres:// URL without its password. */
export function shownDb(db: string): string {
  return db.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}
