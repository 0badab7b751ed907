/**
 * PostgreSQL errors that mean "the database cannot answer right now", not "this
 * request is wrong" nor "sitesync has a bug": a statement cancelled by the
 * statement timeout, a lock or serialisation conflict, a connection the server
 * dropped (restart, fail-over, an administrator), no connection to be had. The
 * server answers them 503 with Retry-After, as it does for a locked SQLite file,
 * so clients and load balancers retry instead of seeing 500. A write cut off
 * this way either did not commit or is looked up by sitesync before it is sent
 * again (docs/client.md, "Retries").
 */

/** SQLSTATE codes: statement timeout, lock not available, serialisation failure, deadlock, disk full, too many connections, shutdown. */
const CODES = new Set(['57014', '55P03', '40001', '40P01', '53100', '53300', '57P01', '57P02', '57P03']);
/** Socket errors on the way to the database. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres reports a dropped or never-made connection without a code. */
const MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

export function isPgUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (CODES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code))) return true;
  return typeof message === 'string' && MESSAGES.test(message);
}
