/**
 * A mistake in how the server was started or pointed at its database (a short
 * provisioned key, a missing directory, a database from a newer sitesync): the
 * CLI shows its message as one line, never a stack trace.
 */
export class ServerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerSetupError';
  }
}
