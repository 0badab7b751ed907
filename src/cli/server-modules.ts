/**
 * The server stack, imported only by `serve` and its subcommands: its packages
 * are optionalDependencies, so a CLI-only install (`npm install --omit=optional`)
 * lacks them, and `serve` then says in one line how to add them instead of a
 * module-resolution stack trace.
 */
import { SitesyncError } from '../model/errors.js';

/** The server's own packages (package.json optionalDependencies). */
export const SERVER_PACKAGES = ['fastify', 'better-sqlite3', 'pg', 'sonic-boom', 'prom-client'] as const;

/** Runs `load` (a dynamic import of server code); a missing server package becomes one readable error. */
export async function importServer<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingServerPackage(error);
    if (missing === undefined) throw error;
    throw new SitesyncError(
      'usage',
      `sitesync serve needs the server packages (${SERVER_PACKAGES.join(', ')}); ${missing} is not installed ` +
        '(a CLI-only install, --omit=optional): reinstall sitesync without --omit=optional to run the server',
    );
  }
}

function missingServerPackage(error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const message = (error as Error).message;
  return SERVER_PACKAGES.find((name) => message.includes(`'${name}'`));
}
